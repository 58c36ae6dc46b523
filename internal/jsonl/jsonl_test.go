package jsonl_test

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/jpcli/jp/internal/jsonl"
)

func TestReadLine(t *testing.T) {
	t.Parallel()
	// A 16-byte buffer makes every line longer than it arrive in fragments.
	br := bufio.NewReaderSize(strings.NewReader("short\n"+strings.Repeat("x", 40)+"\nlast"), 16)
	for _, want := range []string{"short", strings.Repeat("x", 40), "last"} {
		got, err := jsonl.ReadLine(br, nil, 40)
		if err != nil || string(got) != want {
			t.Fatalf("ReadLine = %q, %v; want %q", got, err, want)
		}
	}
	if _, err := jsonl.ReadLine(br, nil, 40); !errors.Is(err, io.EOF) {
		t.Fatalf("at the end: %v, want io.EOF", err)
	}
}

func TestReadLineTooLong(t *testing.T) {
	t.Parallel()
	for _, in := range []string{strings.Repeat("x", 41) + "\n", strings.Repeat("x", 100) + "\n", strings.Repeat("x", 41)} {
		br := bufio.NewReaderSize(strings.NewReader(in), 16)
		if _, err := jsonl.ReadLine(br, nil, 40); !errors.Is(err, jsonl.ErrTooLong) {
			t.Errorf("%d bytes: err = %v, want ErrTooLong", len(in), err)
		}
	}
}

func TestReadLineKeepsPartOnError(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	br := bufio.NewReaderSize(io.MultiReader(strings.NewReader("part"), iotest.ErrReader(boom)), 16)
	got, err := jsonl.ReadLine(br, nil, 40)
	if !errors.Is(err, boom) || string(got) != "part" {
		t.Fatalf("ReadLine = %q, %v; want the part and boom", got, err)
	}
	br = bufio.NewReaderSize(strings.NewReader("rest\n"), 16)
	if got, err := jsonl.ReadLine(br, got, 40); err != nil || string(got) != "partrest" {
		t.Fatalf("resumed = %q, %v; want partrest", got, err)
	}
}
