package run

import (
	"testing"

	"github.com/jpcli/jp/domain/config"
)

func TestApprovalsRememberOnlyRunLevel(t *testing.T) {
	a := NewApprovals()
	if d := a.Decide("ls", config.RunPolicyAsk); d != DecisionAsk {
		t.Fatalf("fresh ask = %v", d)
	}
	a.Record("ls", DecisionRun, PersistLevelNone)
	if d := a.Decide("ls", config.RunPolicyAsk); d != DecisionAsk {
		t.Fatal("a y answer must not be remembered")
	}
	a.Record("ls", DecisionRun, PersistLevelRun)
	if d := a.Decide("ls", config.RunPolicyAsk); d != DecisionRun {
		t.Fatal("a Y answer must hold for the run")
	}
	if d := a.Decide("cat", config.RunPolicyAsk); d != DecisionAsk {
		t.Fatal("answers are keyed by tool name")
	}
	a.Record("rm", DecisionSkip, PersistLevelRun)
	if d := a.Decide("rm", config.RunPolicyAsk); d != DecisionSkip {
		t.Fatal("an N answer must hold for the run")
	}
	if d := a.Decide("rm", config.RunPolicyUnattended); d != DecisionRun {
		t.Fatal("unattended runs")
	}
	if d := a.Decide("ls", config.RunPolicyDeny); d != DecisionDeny {
		t.Fatal("deny wins over a remembered answer")
	}
}

func TestParsePermission(t *testing.T) {
	for _, tt := range []struct {
		key string
		d   Decision
		lvl PersistLevel
	}{
		{"y", DecisionRun, PersistLevelNone}, {"Y", DecisionRun, PersistLevelRun},
		{"n", DecisionSkip, PersistLevelNone}, {"N", DecisionSkip, PersistLevelRun},
		{"e", DecisionEdit, PersistLevelNone}, {"c", DecisionRun, PersistLevelConversation},
		{"w", DecisionRun, PersistLevelWorkspace},
	} {
		d, lvl, err := ParsePermission(tt.key)
		if err != nil || d != tt.d || lvl != tt.lvl {
			t.Errorf("ParsePermission(%q) = %v %v %v", tt.key, d, lvl, err)
		}
	}
	if _, _, err := ParsePermission("x"); err == nil {
		t.Fatal("unknown key accepted")
	}
	if PermissionOptions[1].Label != "run, remember for this run" || PermissionOptions[3].Label != "skip, remember for this run" {
		t.Fatal("prompt labels must say 'remember for this run'")
	}
}

func TestSlotSubmitTable(t *testing.T) {
	tests := []struct {
		name    string
		before  string // "" = empty slot
		text    string
		aborted bool
		effect  SubmitEffect
		after   string
		filled  bool
	}{
		{"first queue", "", "do this next", false, SubmitReplaced, "do this next", true},
		{"submit unchanged", "A", "A", false, SubmitUnchanged, "A", true},
		{"submit edited", "A", "B", false, SubmitReplaced, "B", true},
		{"buffer emptied", "A", "  \n", false, SubmitCleared, "", false},
		{"ctrl+c keeps it", "A", "", true, SubmitAborted, "A", true},
		{"ctrl+c on an empty slot", "", "typed", true, SubmitAborted, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Slot
			if tt.before != "" {
				s.Fill(tt.before)
			}
			if eff := s.Submit(tt.text, tt.aborted); eff != tt.effect {
				t.Fatalf("effect = %v, want %v", eff, tt.effect)
			}
			got, filled := s.Text()
			if got != tt.after || filled != tt.filled {
				t.Fatalf("slot = %q %v", got, filled)
			}
		})
	}
}

func TestRunModesSkipAndEdit(t *testing.T) {
	a := NewApprovals()
	if d := a.Decide("t", config.RunPolicySkip); d != DecisionSkip {
		t.Fatalf("skip = %v", d)
	}
	if d := a.Decide("t", config.RunPolicyEdit); d != DecisionEdit {
		t.Fatalf("edit = %v", d)
	}
	// "always for this conversation/workspace" also hold for the run.
	a.Record("t", DecisionRun, PersistLevelWorkspace)
	if d := a.Decide("t", config.RunPolicyEdit); d != DecisionRun {
		t.Fatalf("edit after w = %v", d)
	}
	a.Record("u", DecisionRun, PersistLevelConversation)
	if d := a.Decide("u", config.RunPolicyAsk); d != DecisionRun {
		t.Fatalf("ask after c = %v", d)
	}
	if d := a.Decide("u", config.RunPolicySkip); d != DecisionSkip {
		t.Fatal("skip wins over a remembered answer")
	}
}
