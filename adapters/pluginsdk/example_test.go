package pluginsdk_test

import (
	"bufio"
	"context"
	"fmt"
	"io"

	"github.com/jpcli/jp/adapters/pluginsdk"
	"github.com/jpcli/jp/domain/plugin"
)

// A plugin that asks before it prints how many conversations the workspace
// has. In a real plugin, main calls pluginsdk.Main(manifest, run), and jp
// is at the other end of stdin and stdout; here a scripted jp plays that
// part and prints every message the plugin sends.
func Example() {
	manifest := plugin.Manifest{Name: "count", Version: "1.0.0", Description: "Count conversations",
		Command: []string{"count"}, ProtocolVersion: plugin.ProtocolVersion}
	run := func(ctx context.Context, c *pluginsdk.Client) error {
		convs, err := c.ListConversations(ctx)
		if err != nil {
			return err
		}
		r, err := c.Confirm(ctx, fmt.Sprintf("Count %d conversations?", len(convs)), true)
		switch {
		case err != nil:
			return err
		case r.Outcome == plugin.PromptOutcomeUnavailable:
			return pluginsdk.Exit(1, "no terminal to ask: run jp count --yes")
		case !r.Bool():
			return nil
		}
		return c.Print(fmt.Sprintf("%d conversations\n", len(convs)))
	}

	toPlugin, jpOut := io.Pipe()
	fromPlugin, pluginOut := io.Pipe()
	go func() {
		pluginsdk.Run(context.Background(), toPlugin, pluginOut, io.Discard, manifest, run)
		pluginOut.Close()
	}()
	// The scripted jp: init first, then one answer after each request.
	answers := []string{
		`{"type":"conversations","id":"1","data":[{"id":"17127583920","title":"Refactor config","last_activated_at":"2025-07-20T10:30:00Z","events_count":42}]}`,
		`{"type":"prompt_response","id":"2","outcome":"answered","value":true}`,
	}
	fmt.Fprintln(jpOut, `{"type":"init","version":2,"options":{},"args":[],"log_level":1,"output_format":"text","paths":{"user_data":"/d","user_config":"/c"}}`)
	sc := bufio.NewScanner(fromPlugin)
	for sc.Scan() {
		fmt.Println(sc.Text())
		if len(answers) > 0 && sc.Text() != `{"type":"ready","protocol":2}` {
			fmt.Fprintln(jpOut, answers[0])
			answers = answers[1:]
		}
		if sc.Text() == `{"type":"exit","code":0}` {
			jpOut.Close() // jp closes the plugin's stdin once it has the exit
		}
	}
	// Output:
	// {"type":"ready","protocol":2}
	// {"type":"list_conversations","id":"1"}
	// {"type":"prompt","id":"2","kind":"confirm","message":"Count 1 conversations?","default":true}
	// {"type":"print","text":"1 conversations\n"}
	// {"type":"exit","code":0}
}
