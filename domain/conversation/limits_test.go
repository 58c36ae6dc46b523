package conversation

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckTitle(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
		empty         bool
	}{
		{in: "  Release notes ", want: "Release notes"},
		{in: strings.Repeat("é", 200), want: strings.Repeat("é", 200)},
		{in: " " + strings.Repeat("x", 200) + "\t", want: strings.Repeat("x", 200)},
		{in: strings.Repeat("x", 201), err: "a title is at most 200 characters and this one has 201: shorten it"},
		{in: "a\nb", err: "a title must be one line"},
		{in: "  ", err: "a title must be one non-empty line"},
		{in: "", empty: true, want: ""},
	} {
		got, err := CheckTitle(tc.in, tc.empty)
		switch {
		case tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err) || strings.Contains(err.Error(), "\n")):
			t.Errorf("CheckTitle(%.20q) error %v, want %q", tc.in, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("CheckTitle(%.20q) = %.20q, %v", tc.in, got, err)
		}
	}
	if _, err := CheckTitle(strings.Repeat("x", 10<<20), false); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a 10 MB title: %v", err)
	}
}

func TestCheckSize(t *testing.T) {
	if err := CheckSize("the draft", strings.Repeat("x", 100), 100, "conversation.limits.draft_bytes"); err != nil {
		t.Fatal(err)
	}
	err := CheckSize("the draft", strings.Repeat("x", 15<<20), 4<<20, "conversation.limits.draft_bytes")
	if err == nil || !errors.Is(err, ErrTooLarge) ||
		err.Error() != "the draft is 15.0 MiB, over the limit of 4.0 MiB (conversation.limits.draft_bytes); nothing was written" {
		t.Fatalf("err = %v", err)
	}
}
