package conversation

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
)

// labelsKey is the metadata.json key holding a conversation's labels: an
// object of key to value, as the Rust jp writes it (a bare label has the
// value ""). Older versions of this jp wrote an array of names; it is read
// as those keys with empty values. It is kept in Metadata.Extra, so a jp
// that does not know labels keeps them on rewrite.
const labelsKey = "labels"

// LabelMap returns the conversation's labels; none when the key is absent
// or holds neither an object of strings nor an array of strings.
func (m Metadata) LabelMap() map[string]string {
	raw, ok := m.Extra[labelsKey]
	if !ok {
		return nil
	}
	var obj map[string]string
	if err := json.Unmarshal(raw, &obj); err == nil {
		return obj
	}
	var ls []string
	if err := json.Unmarshal(raw, &ls); err != nil {
		return nil
	}
	out := make(map[string]string, len(ls))
	for _, l := range ls {
		out[l] = ""
	}
	return out
}

// LabelText is how a label reads: key=value, or the bare key when the
// value is empty.
func LabelText(key, value string) string {
	if value == "" {
		return key
	}
	return key + "=" + value
}

// Labels returns the conversation's labels as LabelText, sorted by key.
func (m Metadata) Labels() []string {
	lm := m.LabelMap()
	out := make([]string, 0, len(lm))
	for _, k := range slices.Sorted(maps.Keys(lm)) {
		out = append(out, LabelText(k, lm[k]))
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// HasLabel reports whether the conversation has a label with key name.
func (m Metadata) HasLabel(name string) bool {
	_, ok := m.LabelMap()[name]
	return ok
}

// SetLabelMap replaces the labels; none removes the key. It is written as
// an object, the Rust jp's format.
func (m *Metadata) SetLabelMap(lm map[string]string) {
	if len(lm) == 0 {
		delete(m.Extra, labelsKey)
		return
	}
	b, _ := json.Marshal(lm) // a map[string]string always marshals (sorted keys)
	if m.Extra == nil {
		m.Extra = map[string]json.RawMessage{}
	}
	m.Extra[labelsKey] = b
}

// SetLabels replaces the labels with ls, each key=value or a bare key;
// a key given twice keeps its last value.
func (m *Metadata) SetLabels(ls []string) {
	lm := make(map[string]string, len(ls))
	for _, l := range ls {
		k, v, _ := strings.Cut(l, "=")
		lm[k] = v
	}
	m.SetLabelMap(lm)
}

// MaxLabelValueChars bounds a label's value: it is shown in listings.
const MaxLabelValueChars = 256

// CheckLabelKey validates a label key as the Rust jp does: a letter, then
// letters, digits, '_' and '-' (at most 64 characters).
func CheckLabelKey(key string) error {
	const grammar = "a label key starts with a letter, followed by letters, digits, _ and -"
	if key == "" {
		return fmt.Errorf("the label key is empty: %s", grammar)
	}
	if len(key) > 64 {
		return fmt.Errorf("label key %q is longer than 64 characters", key)
	}
	if c := key[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
		return fmt.Errorf("label key %q starts with %q: %s", key, rune(c), grammar)
	}
	if i := strings.IndexFunc(key, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	}); i >= 0 {
		return fmt.Errorf("invalid character %q in label key %q: %s", rune(key[i]), key, grammar)
	}
	return nil
}

// checkLabelValue refuses values that would not read as one line.
func checkLabelValue(key, value string) error {
	if len([]rune(value)) > MaxLabelValueChars {
		return fmt.Errorf("the value of label %q is longer than %d characters", key, MaxLabelValueChars)
	}
	if strings.IndexFunc(value, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) >= 0 {
		return fmt.Errorf("the value of label %q has control or invisible characters: give it on one line", key)
	}
	return nil
}

// LabelOp is what a LabelDirective does.
type LabelOp int

// The label operations.
const (
	LabelSet       LabelOp = iota // set Key to Value
	LabelRemove                   // remove Key
	LabelRemoveAll                // remove every label so far
)

// LabelDirective is one label change, applied in the order given.
type LabelDirective struct {
	Op         LabelOp
	Key, Value string
}

// ParseLabelSet reads KEY[=VALUE] (a bare key sets an empty value). The
// value is taken literally, commas included.
func ParseLabelSet(raw string) (LabelDirective, error) {
	if name, ok := strings.CutPrefix(raw, ":"); ok {
		return LabelDirective{}, fmt.Errorf("label alias ':%s' (a conversation.labels rule) is not supported by this jp yet: give the label as key=value", name)
	}
	k, v, _ := strings.Cut(raw, "=")
	if err := CheckLabelKey(k); err != nil {
		return LabelDirective{}, err
	}
	if err := checkLabelValue(k, v); err != nil {
		return LabelDirective{}, err
	}
	return LabelDirective{Op: LabelSet, Key: k, Value: v}, nil
}

// ParseLabelRemove reads a KEY to remove. Any key is taken: labels written
// by older versions may not follow today's key rules.
func ParseLabelRemove(raw string) (LabelDirective, error) {
	if raw == "" || strings.ContainsAny(raw, "= \t\n") {
		return LabelDirective{}, fmt.Errorf("%q is not a label key: give the key alone (rm takes keys, not key=value)", raw)
	}
	return LabelDirective{Op: LabelRemove, Key: raw}, nil
}

// LabelsApplied is what applying directives did.
type LabelsApplied struct {
	// Removed are the labels removed, key=value as they were.
	Removed [][2]string
	// Missing are keys named for removal that were not there.
	Missing []string
}

// ApplyLabels applies ds to lm in order.
func ApplyLabels(lm map[string]string, ds []LabelDirective) LabelsApplied {
	var out LabelsApplied
	for _, d := range ds {
		switch d.Op {
		case LabelSet:
			lm[d.Key] = d.Value
		case LabelRemove:
			if v, ok := lm[d.Key]; ok {
				out.Removed = append(out.Removed, [2]string{d.Key, v})
				delete(lm, d.Key)
			} else {
				out.Missing = append(out.Missing, d.Key)
			}
		case LabelRemoveAll:
			for _, k := range slices.Sorted(maps.Keys(lm)) {
				out.Removed = append(out.Removed, [2]string{k, lm[k]})
			}
			clear(lm)
		}
	}
	return out
}

// LabelSelector is one --label filter: key=value matches that value
// exactly; a bare key matches the key with any value.
type LabelSelector struct {
	Key, Value string
	Exact      bool
}

// ParseLabelSelector reads a --label filter.
func ParseLabelSelector(raw string) (LabelSelector, error) {
	if name, ok := strings.CutPrefix(raw, ":"); ok {
		return LabelSelector{}, fmt.Errorf("label alias ':%s' cannot be used as a filter: filter on the stored value (--label %s=VALUE, or --label %s for any value)", name, name, name)
	}
	k, v, exact := strings.Cut(raw, "=")
	if k == "" || strings.ContainsAny(k, " \t\n") {
		return LabelSelector{}, fmt.Errorf("--label %q: give KEY or KEY=VALUE", raw)
	}
	return LabelSelector{Key: k, Value: v, Exact: exact}, nil
}

// MatchLabels reports whether lm satisfies every selector.
func MatchLabels(lm map[string]string, sels []LabelSelector) bool {
	for _, s := range sels {
		v, ok := lm[s.Key]
		if !ok || s.Exact && v != s.Value {
			return false
		}
	}
	return true
}
