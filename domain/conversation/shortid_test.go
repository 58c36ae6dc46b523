package conversation

import "testing"

func TestShortIDs(t *testing.T) {
	t.Parallel()
	ids := []ID{"17127583920", "17127583999", "17130000000", "18000000000", "17127583920"}
	got := ShortIDs(ids, 4)
	want := map[ID]string{
		"17127583920": "1712758392",
		"17127583999": "1712758399",
		"17130000000": "1713",
		"18000000000": "1800",
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: got %q, want %q", id, got[id], w)
		}
	}
	// Every short form is a prefix of its ID and of no other.
	for id, short := range got {
		for other := range got {
			if other != id && len(other) >= len(short) && string(other)[:len(short)] == short {
				t.Errorf("%s's short form %q also names %s", id, short, other)
			}
		}
	}
}
