package filesnap

import (
	"slices"
	"testing"
	"time"
)

func st(h string, n int64) State { return State{Exists: true, Hash: h, Size: n} }

var absent = State{}

func TestPlanRestoresTheStateBeforeTheFirstUndoneTurn(t *testing.T) {
	var x Index
	at := time.Unix(0, 0)
	// turn a creates f; turn b modifies f and g; turn c deletes g.
	x.Add("a", "f", "fs_create_file", at, absent)
	x.Wrote("a", "f", st("f1", 1))
	x.Add("b", "f", "fs_modify_file", at, st("f1", 1))
	x.Wrote("b", "f", st("f2", 2))
	x.Add("b", "g", "fs_modify_file", at, st("g0", 3))
	x.Wrote("b", "g", st("g1", 3))
	if x.Add("b", "g", "fs_modify_file", at, st("g1", 3)) {
		t.Fatal("a second capture in one turn must keep the first")
	}
	x.Add("c", "g", "fs_delete_file", at, st("g1", 3))
	x.Wrote("c", "g", absent)

	undone := map[string]bool{"b": true, "c": true}
	got := Plan(x, undone, map[string]State{"f": st("f2", 2), "g": absent})
	if len(got) != 2 || got[0].Path != "f" || got[1].Path != "g" {
		t.Fatalf("plan = %+v", got)
	}
	if !got[0].To.Same(st("f1", 1)) || got[0].Conflict || !slices.Equal(got[0].Turns, []string{"b"}) {
		t.Errorf("f: %+v", got[0])
	}
	if !got[1].To.Same(st("g0", 3)) || !got[1].Expect.Same(absent) || got[1].Conflict || !slices.Equal(got[1].Turns, []string{"b", "c"}) {
		t.Errorf("g: %+v", got[1])
	}
	// Someone changed f since jp wrote it: a conflict.
	got = Plan(x, undone, map[string]State{"f": st("zz", 2), "g": absent})
	if !got[0].Conflict || got[1].Conflict {
		t.Errorf("conflicts: %+v", got)
	}
	// Undoing every turn takes f back to absent.
	got = Plan(x, map[string]bool{"a": true, "b": true, "c": true}, map[string]State{"f": st("f2", 2), "g": absent})
	if got[0].To.Exists || got[0].Noop() {
		t.Errorf("f must be deleted: %+v", got[0])
	}
}

func TestPruneDropsTheOldestTurnsButNeverTheCurrentOne(t *testing.T) {
	var x Index
	at := time.Unix(0, 0)
	x.Add("a", "f", "t", at, st("h1", 600))
	x.Add("b", "g", "t", at, st("h2", 600))
	x.Add("c", "h", "t", at, st("h3", 600))
	if d := x.Prune(0, "c"); d != nil {
		t.Fatalf("no bound dropped %v", d)
	}
	d := x.Prune(1000, "c")
	if !slices.Equal(d, []string{"a", "b"}) || !slices.Equal(x.Dropped, []string{"a", "b"}) || len(x.Records) != 1 {
		t.Fatalf("dropped %v, index %+v", d, x)
	}
	// The current turn alone over the bound is kept.
	if d := x.Prune(10, "c"); d != nil || len(x.Records) != 1 {
		t.Fatalf("dropped the current turn: %v", d)
	}
	if got := DroppedAmong(x, map[string]bool{"b": true, "c": true}); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("DroppedAmong = %v", got)
	}
	// The same content kept twice counts once.
	var y Index
	y.Add("a", "f", "t", at, st("same", 500))
	y.Add("b", "g", "t", at, st("same", 500))
	if y.Bytes() != 500 {
		t.Fatalf("Bytes = %d", y.Bytes())
	}
}
