package conversation

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxTitleChars is the longest title, in characters after trimming, that
// jp stores: a title is a one-line label in listings, and it is committed
// in metadata.json.
const MaxTitleChars = 200

// ErrTooLarge marks a value refused because it is over a size limit.
var ErrTooLarge = errors.New("over the size limit")

// CheckTitle trims a title and checks it: one line, at most MaxTitleChars
// characters, and not empty unless allowEmpty. The error is one line that
// names the limit.
func CheckTitle(raw string, allowEmpty bool) (string, error) {
	title := strings.TrimSpace(raw)
	if strings.ContainsAny(title, "\r\n") {
		return "", errors.New("a title must be one line")
	}
	if title == "" && !allowEmpty {
		return "", errors.New("a title must be one non-empty line")
	}
	if n := utf8.RuneCountInString(title); n > MaxTitleChars {
		return "", &limitError{fmt.Sprintf("a title is at most %d characters and this one has %d: shorten it", MaxTitleChars, n)}
	}
	return title, nil
}

// CheckSize refuses text longer than limit bytes, with one line naming
// what, the limit and the setting that raises it.
func CheckSize(what string, text string, limit int, setting string) error {
	if limit <= 0 || len(text) <= limit {
		return nil
	}
	return &limitError{fmt.Sprintf("%s is %s, over the limit of %s (%s); nothing was written", what, Bytes(len(text)), Bytes(limit), setting)}
}

// limitError is a refusal for size: errors.Is(err, ErrTooLarge).
type limitError struct{ msg string }

func (e *limitError) Error() string        { return e.msg }
func (e *limitError) Is(target error) bool { return target == ErrTooLarge }

// Bytes says a size for people: "15.0 MiB", "512 bytes".
func Bytes(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
