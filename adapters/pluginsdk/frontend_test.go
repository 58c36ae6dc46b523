package pluginsdk_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jpcli/jp/adapters/pluginsdk"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
)

// TestContextMeterAndCompact: the frontend's requests name the checkout
// and the conversation, and return jp's answers.
func TestContextMeterAndCompact(t *testing.T) {
	ref := workspace.Ref{ID: "a1b2c3d", Root: "/src/wt"}
	var meter plugin.Meter
	var compacted plugin.Compacted
	f := start(t, initLine, func(ctx context.Context, c *pluginsdk.Client) error {
		var err error
		if meter, err = c.At(ref).ContextMeter(ctx, "17127583920"); err != nil {
			t.Error(err)
		}
		if compacted, err = c.At(ref).Compact(ctx, "17127583920", true); err != nil {
			t.Error(err)
		}
		return nil
	})
	f.Recv() // ready
	r := f.Recv()
	if r["type"] != "context_meter" || r["conversation"] != "17127583920" || fmt.Sprint(r["workspace"]) != "map[id:a1b2c3d root:/src/wt]" {
		t.Fatalf("meter request = %v", r)
	}
	f.Send(fmt.Sprintf(`{"type":"meter","id":%q,"conversation":"17127583920","model":"demo/echo","tokens":1200,"window":32000}`, r["id"]))
	r = f.Recv()
	if r["type"] != "compact" || r["dry_run"] != true || r["conversation"] != "17127583920" || fmt.Sprint(r["workspace"]) != "map[id:a1b2c3d root:/src/wt]" {
		t.Fatalf("compact request = %v", r)
	}
	f.Send(fmt.Sprintf(`{"type":"compacted","id":%q,"conversation":"17127583920","dry_run":true,"added":1,"turns":4,"tokens_before":1200,"tokens_after":300}`, r["id"]))
	f.Recv() // exit
	f.End()
	if meter.Tokens != 1200 || meter.Window != 32000 || meter.Model != "demo/echo" {
		t.Fatalf("meter = %+v", meter)
	}
	if !compacted.DryRun || compacted.Added != 1 || compacted.Turns != 4 || compacted.TokensBefore != 1200 || compacted.TokensAfter != 300 {
		t.Fatalf("compacted = %+v", compacted)
	}
}

// TestHistory: read_history and add_history round trips.
func TestHistory(t *testing.T) {
	var got []string
	f := start(t, initLine, func(ctx context.Context, c *pluginsdk.Client) error {
		var err error
		if got, err = c.ReadHistory(ctx); err != nil {
			t.Error(err)
		}
		if err := c.AddHistory(ctx, "sent"); err != nil {
			t.Error(err)
		}
		return nil
	})
	f.Recv() // ready
	r := f.Recv()
	if r["type"] != "read_history" {
		t.Fatalf("request = %v", r)
	}
	f.Send(fmt.Sprintf(`{"type":"history","id":%q,"data":["one","two"]}`, r["id"]))
	r = f.Recv()
	if r["type"] != "add_history" || r["text"] != "sent" {
		t.Fatalf("request = %v", r)
	}
	f.Send(fmt.Sprintf(`{"type":"history_added","id":%q}`, r["id"]))
	f.Recv() // exit
	f.End()
	if len(got) != 2 || got[0] != "one" || got[1] != "two" {
		t.Fatalf("history = %q", got)
	}
}

// TestRewindAndTrust: rewind and trust name the checkout, carry their
// options, and return jp's answers.
func TestRewindAndTrust(t *testing.T) {
	ref := workspace.Ref{ID: "a1b2c3d", Root: "/src/wt"}
	var rw plugin.Rewound
	var tr plugin.Trusted
	f := start(t, initLine, func(ctx context.Context, c *pluginsdk.Client) error {
		var err error
		if rw, err = c.At(ref).Rewind(ctx, "17127583920", 1, pluginsdk.RewindOptions{DryRun: true}); err != nil {
			t.Error(err)
		}
		if tr, err = c.At(ref).Trust(ctx, false); err != nil {
			t.Error(err)
		}
		return nil
	})
	f.Recv() // ready
	r := f.Recv()
	if r["type"] != "rewind" || r["turn"] != float64(1) || r["dry_run"] != true || r["truncate"] != nil || fmt.Sprint(r["workspace"]) != "map[id:a1b2c3d root:/src/wt]" {
		t.Fatalf("rewind request = %v", r)
	}
	f.Send(fmt.Sprintf(`{"type":"rewound","id":%q,"conversation":"17127583920","dry_run":true,"turns":2,"undone":[2],"files":[{"path":"f","action":"restore","turns":[2]}],"conflicts":[]}`, r["id"]))
	r = f.Recv()
	if r["type"] != "trust" || r["dry_run"] != nil || fmt.Sprint(r["workspace"]) != "map[id:a1b2c3d root:/src/wt]" {
		t.Fatalf("trust request = %v", r)
	}
	f.Send(fmt.Sprintf(`{"type":"trusted","id":%q,"root":"/src/wt","trusted":true,"held":[{"key":"mcp.servers.x","does":"runs: x"}]}`, r["id"]))
	f.Recv() // exit
	f.End()
	if !rw.DryRun || len(rw.Files) != 1 || rw.Files[0].Path != "f" || rw.Files[0].Action != "restore" || fmt.Sprint(rw.Undone) != "[2]" {
		t.Fatalf("rewound = %+v", rw)
	}
	if !tr.Trusted || tr.Root != "/src/wt" || len(tr.Held) != 1 || tr.Held[0].Key != "mcp.servers.x" {
		t.Fatalf("trusted = %+v", tr)
	}
}
