package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/jpcli/jp/domain/timespec"
)

// optFlag is a flag whose value may be left out, as the Rust jp has them
// (--first[=N], --pin[=BOOL], --tmp[=DURATION], --title[=TEXT]): the flag
// alone is Set with Value "", --flag=V gives V, and --flag V takes V when
// takes accepts it (as clap does for an optional value), else V is left
// for the next argument.
type optFlag struct {
	Set   bool
	Value string
}

func (o *optFlag) decode(ctx *kong.DecodeContext, takes func(string) bool) error {
	return o.decodeWith(ctx, takes, takes)
}

// decodeWith is decode with one test for a value glued to a short flag
// (-kSPEC; the Rust jp's clap reads it as the value) and another for the
// next word.
func (o *optFlag) decodeWith(ctx *kong.DecodeContext, glued, next func(string) bool) error {
	o.Set, o.Value = true, ""
	t := ctx.Scan.Peek()
	switch {
	case t.Type == kong.FlagValueToken:
		o.Value = ctx.Scan.Pop().String()
	case t.InferredType() == kong.ShortFlagTailToken:
		if glued(t.String()) {
			o.Value = ctx.Scan.Pop().String()
		}
	case t.IsValue() && !t.IsEOL() && next(t.String()):
		o.Value = ctx.Scan.Pop().String()
	}
	return nil
}

// optSpecs is a repeatable --flag[=SPEC] whose value is given attached
// (--compact=SPEC, -kSPEC) and never taken from the next word, which
// stays an argument (jp q --compact MESSAGE): bare, it adds "".
type optSpecs struct{ Values []string }

// Decode implements kong.MapperValue.
func (o *optSpecs) Decode(ctx *kong.DecodeContext) error {
	var f optFlag
	if err := f.decodeWith(ctx, func(string) bool { return true }, func(string) bool { return false }); err != nil {
		return err
	}
	o.Values = append(o.Values, f.Value)
	return nil
}

// optTrueFalse is --flag[=true|false] (jp q --quote): the next word is
// its value only when it is true or false, else it stays an argument.
type optTrueFalse struct{ optFlag }

// Decode implements kong.MapperValue.
func (o *optTrueFalse) Decode(ctx *kong.DecodeContext) error {
	return o.decode(ctx, func(s string) bool { return s == "true" || s == "false" })
}

// optCount is --flag[=N]: a number of turns, 1 when left out.
type optCount struct{ optFlag }

// Decode implements kong.MapperValue.
func (o *optCount) Decode(ctx *kong.DecodeContext) error {
	return o.decode(ctx, func(s string) bool { _, err := strconv.ParseUint(s, 10, 31); return err == nil })
}

// N is the count given, 1 when the flag came alone, 0 when not given.
func (o optCount) N(flag string) (int, error) {
	if !o.Set {
		return 0, nil
	}
	if o.Value == "" {
		return 1, nil
	}
	n, err := strconv.ParseUint(o.Value, 10, 31)
	if err != nil {
		return 0, fmt.Errorf("--%s %q: give a number of turns", flag, o.Value)
	}
	return int(n), nil
}

// optBool is --flag[=true|false]: left out, it toggles.
type optBool struct{ optFlag }

func isBoolWord(s string) bool {
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "1", "0":
		return true
	}
	return false
}

// Decode implements kong.MapperValue.
func (o *optBool) Decode(ctx *kong.DecodeContext) error { return o.decode(ctx, isBoolWord) }

// Want is the value asked for given the current one: the flag alone
// toggles it.
func (o optBool) Want(flag string, current bool) (bool, error) {
	switch strings.ToLower(o.Value) {
	case "":
		return !current, nil
	case "true", "yes", "1":
		return true, nil
	case "false", "no", "0":
		return false, nil
	}
	return false, fmt.Errorf("--%s=%s: give true or false, or --%s alone to toggle", flag, o.Value, flag)
}

// optDuration is --flag[=DURATION|now].
type optDuration struct{ optFlag }

// Decode implements kong.MapperValue.
func (o *optDuration) Decode(ctx *kong.DecodeContext) error {
	return o.decode(ctx, func(s string) bool {
		_, err := timespec.ParseDuration(s)
		return err == nil || strings.EqualFold(s, "now")
	})
}

// optText is --flag[=TEXT]: any next argument not starting with '-' is
// its value.
type optText struct{ optFlag }

// Decode implements kong.MapperValue.
func (o *optText) Decode(ctx *kong.DecodeContext) error {
	return o.decode(ctx, func(s string) bool { return !strings.HasPrefix(s, "-") })
}

// duration is the value for parseTmp: "" when not given, "0s" alone.
func (o optDuration) duration() string {
	switch {
	case !o.Set:
		return ""
	case o.Value == "":
		return "0s"
	}
	return o.Value
}
