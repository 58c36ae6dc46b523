package config

import (
	"fmt"
	"slices"
	"strings"
)

// Enum is implemented by every closed value type of the configuration. The
// loader validates, decodes, renders and documents enum keys through it and
// through EnumSetter on the pointer.
type Enum interface {
	// EnumValues lists every accepted value in documentation order:
	// strings, or bools and strings for ComposeInEditor.
	EnumValues() []any
	// ConfigValue is the value as written in a configuration tree; nil for
	// the Unknown zero value, which is never written.
	ConfigValue() any
}

// EnumSetter is implemented by pointers to enums.
type EnumSetter interface {
	// SetConfigValue sets the enum from a value of a configuration tree; a
	// value outside EnumValues is an error.
	SetConfigValue(v any) error
}

// ExpectedValues formats the accepted values of an enum for an error
// message: "never, if_pending".
func ExpectedValues(e Enum) string {
	return strings.Join(mapSlice(e.EnumValues(), func(v any) string { return fmt.Sprint(v) }), ", ")
}

// enumNames spells an int-backed enum: index i is the name of value i;
// index 0 is the Unknown zero value.
type enumNames []string

func (n enumNames) name(i int) string {
	if i > 0 && i < len(n) {
		return n[i]
	}
	return "unknown"
}

func (n enumNames) parse(what, s string) (int, error) {
	if i := slices.Index(n[1:], s); i >= 0 {
		return i + 1, nil
	}
	return 0, fmt.Errorf("invalid %s %q: expected one of %s", what, s, strings.Join(n[1:], ", "))
}

func (n enumNames) values() []any {
	return mapSlice(n[1:], func(s string) any { return s })
}

func (n enumNames) configValue(i int) any {
	if i > 0 && i < len(n) {
		return n[i]
	}
	return nil
}

func setEnum[T ~int](dst *T, v any, names enumNames) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("expected one of %s, got %v", strings.Join(names[1:], ", "), v)
	}
	i, err := names.parse("value", s)
	if err != nil {
		return fmt.Errorf("expected one of %s, got %q", strings.Join(names[1:], ", "), s)
	}
	*dst = T(i)
	return nil
}

// LoopPolicy is query.loop: when the turn loop runs another turn.
type LoopPolicy int

// Loop policies.
const (
	LoopPolicyUnknown   LoopPolicy = iota
	LoopPolicyNever                // end the invocation; a queued reply stays as a draft
	LoopPolicyIfPending            // run another turn when a reply is queued
	LoopPolicyAlways               // session mode: prompt for the next message when nothing is queued
)

var loopPolicyNames = enumNames{"unknown", "never", "if_pending", "always"}

// String returns the configuration spelling.
func (p LoopPolicy) String() string { return loopPolicyNames.name(int(p)) }

// ParseLoopPolicy reads a query.loop value.
func ParseLoopPolicy(s string) (LoopPolicy, error) {
	i, err := loopPolicyNames.parse("query.loop value", s)
	return LoopPolicy(i), err
}

// EnumValues implements Enum.
func (p LoopPolicy) EnumValues() []any { return loopPolicyNames.values() }

// ConfigValue implements Enum.
func (p LoopPolicy) ConfigValue() any { return loopPolicyNames.configValue(int(p)) }

// SetConfigValue implements EnumSetter.
func (p *LoopPolicy) SetConfigValue(v any) error { return setEnum(p, v, loopPolicyNames) }

// StreamingAction is interrupt.streaming.action: what Ctrl-C does while the
// assistant streams.
type StreamingAction int

// Streaming interrupt actions.
const (
	StreamingActionUnknown    StreamingAction = iota
	StreamingActionPrompt                     // show the menu
	StreamingActionContinue                   // resume the response
	StreamingActionReply                      // stop the response and send a new message
	StreamingActionQueueReply                 // compose a reply sent after the turn ends
	StreamingActionStop                       // save the response so far and exit
	StreamingActionAbort                      // discard the in-progress response and exit
)

var streamingActionNames = enumNames{"unknown", "prompt", "continue", "reply", "queue_reply", "stop", "abort"}

// String returns the configuration spelling.
func (a StreamingAction) String() string { return streamingActionNames.name(int(a)) }

// ParseStreamingAction reads an interrupt.streaming.action value.
func ParseStreamingAction(s string) (StreamingAction, error) {
	i, err := streamingActionNames.parse("interrupt.streaming.action value", s)
	return StreamingAction(i), err
}

// EnumValues implements Enum.
func (a StreamingAction) EnumValues() []any { return streamingActionNames.values() }

// ConfigValue implements Enum.
func (a StreamingAction) ConfigValue() any { return streamingActionNames.configValue(int(a)) }

// SetConfigValue implements EnumSetter.
func (a *StreamingAction) SetConfigValue(v any) error { return setEnum(a, v, streamingActionNames) }

// ToolCallAction is interrupt.tool_call.action: what Ctrl-C does while
// tools run.
type ToolCallAction int

// Tool-call interrupt actions.
const (
	ToolCallActionUnknown    ToolCallAction = iota
	ToolCallActionPrompt                    // show the menu
	ToolCallActionContinue                  // keep waiting for the tools
	ToolCallActionRespond                   // cancel the tools and answer in their place
	ToolCallActionQueueReply                // compose a reply sent after the turn ends
	ToolCallActionStop                      // cancel the tools and exit
	ToolCallActionRestart                   // cancel the tools and run them again
)

var toolCallActionNames = enumNames{"unknown", "prompt", "continue", "respond", "queue_reply", "stop", "restart"}

// String returns the configuration spelling.
func (a ToolCallAction) String() string { return toolCallActionNames.name(int(a)) }

// ParseToolCallAction reads an interrupt.tool_call.action value.
func ParseToolCallAction(s string) (ToolCallAction, error) {
	i, err := toolCallActionNames.parse("interrupt.tool_call.action value", s)
	return ToolCallAction(i), err
}

// EnumValues implements Enum.
func (a ToolCallAction) EnumValues() []any { return toolCallActionNames.values() }

// ConfigValue implements Enum.
func (a ToolCallAction) ConfigValue() any { return toolCallActionNames.configValue(int(a)) }

// SetConfigValue implements EnumSetter.
func (a *ToolCallAction) SetConfigValue(v any) error { return setEnum(a, v, toolCallActionNames) }

// CountdownAction is interrupt.loop_countdown.action: what Ctrl-C does
// during the countdown before a queued reply is sent.
type CountdownAction int

// Countdown interrupt actions.
const (
	CountdownActionUnknown CountdownAction = iota
	CountdownActionPrompt                  // show the menu
	CountdownActionSend                    // send the queued reply now
	CountdownActionKeep                    // keep the draft, end the invocation
	CountdownActionDiscard                 // delete the draft, end the invocation
	CountdownActionEdit                    // compose, then restart the countdown
)

var countdownActionNames = enumNames{"unknown", "prompt", "send", "keep", "discard", "edit"}

// String returns the configuration spelling.
func (a CountdownAction) String() string { return countdownActionNames.name(int(a)) }

// ParseCountdownAction reads an interrupt.loop_countdown.action value.
func ParseCountdownAction(s string) (CountdownAction, error) {
	i, err := countdownActionNames.parse("interrupt.loop_countdown.action value", s)
	return CountdownAction(i), err
}

// EnumValues implements Enum.
func (a CountdownAction) EnumValues() []any { return countdownActionNames.values() }

// ConfigValue implements Enum.
func (a CountdownAction) ConfigValue() any { return countdownActionNames.configValue(int(a)) }

// SetConfigValue implements EnumSetter.
func (a *CountdownAction) SetConfigValue(v any) error { return setEnum(a, v, countdownActionNames) }

// RunPolicy is the run key of tools and command plugins.
type RunPolicy int

// Run policies. RunPolicyUnknown on a tool means "inherit the defaults".
const (
	RunPolicyUnknown    RunPolicy = iota
	RunPolicyAsk                  // ask before running
	RunPolicyUnattended           // run without asking
	RunPolicyDeny                 // refuse
	RunPolicyEdit                 // open the arguments in the editor, then ask
	RunPolicySkip                 // do not run; answer with the cancellation response
	RunPolicyAskAlways            // ask before running, whatever conversation.tools.auto says ("ask!")
)

var runPolicyNames = enumNames{"unknown", "ask", "unattended", "deny", "edit", "skip", "ask!"}

// String returns the configuration spelling.
func (p RunPolicy) String() string { return runPolicyNames.name(int(p)) }

// ParseRunPolicy reads a run value.
func ParseRunPolicy(s string) (RunPolicy, error) {
	i, err := runPolicyNames.parse("run policy", s)
	return RunPolicy(i), err
}

// EnumValues implements Enum.
func (p RunPolicy) EnumValues() []any { return runPolicyNames.values() }

// ConfigValue implements Enum.
func (p RunPolicy) ConfigValue() any { return runPolicyNames.configValue(int(p)) }

// SetConfigValue implements EnumSetter.
func (p *RunPolicy) SetConfigValue(v any) error { return setEnum(p, v, runPolicyNames) }

// ResultPolicy is a tool's result key: what happens to a result before
// it is sent back to the model.
type ResultPolicy int

// Result policies. ResultPolicyUnknown on a tool means "inherit the
// defaults".
const (
	ResultPolicyUnknown    ResultPolicy = iota
	ResultPolicyUnattended              // send it as it is
	ResultPolicyAsk                     // ask before sending it
	ResultPolicyEdit                    // open it in the editor, send what is saved
)

var resultPolicyNames = enumNames{"unknown", "unattended", "ask", "edit"}

// String returns the configuration spelling.
func (p ResultPolicy) String() string { return resultPolicyNames.name(int(p)) }

// ParseResultPolicy reads a result value.
func ParseResultPolicy(s string) (ResultPolicy, error) {
	i, err := resultPolicyNames.parse("result policy", s)
	return ResultPolicy(i), err
}

// EnumValues implements Enum.
func (p ResultPolicy) EnumValues() []any { return resultPolicyNames.values() }

// ConfigValue implements Enum.
func (p ResultPolicy) ConfigValue() any { return resultPolicyNames.configValue(int(p)) }

// SetConfigValue implements EnumSetter.
func (p *ResultPolicy) SetConfigValue(v any) error { return setEnum(p, v, resultPolicyNames) }

// ChecksumAlgorithm is the algorithm of a pinned plugin checksum.
type ChecksumAlgorithm int

// Checksum algorithms.
const (
	ChecksumAlgorithmUnknown ChecksumAlgorithm = iota
	ChecksumAlgorithmSHA256
)

var checksumAlgorithmNames = enumNames{"unknown", "sha256"}

// String returns the configuration spelling.
func (a ChecksumAlgorithm) String() string { return checksumAlgorithmNames.name(int(a)) }

// ParseChecksumAlgorithm reads a checksum algorithm.
func ParseChecksumAlgorithm(s string) (ChecksumAlgorithm, error) {
	i, err := checksumAlgorithmNames.parse("checksum algorithm", s)
	return ChecksumAlgorithm(i), err
}

// EnumValues implements Enum.
func (a ChecksumAlgorithm) EnumValues() []any { return checksumAlgorithmNames.values() }

// ConfigValue implements Enum.
func (a ChecksumAlgorithm) ConfigValue() any { return checksumAlgorithmNames.configValue(int(a)) }

// SetConfigValue implements EnumSetter.
func (a *ChecksumAlgorithm) SetConfigValue(v any) error {
	return setEnum(a, v, checksumAlgorithmNames)
}

// SandboxLevel is a tool's sandbox key.
type SandboxLevel int

// Sandbox levels. SandboxLevelUnknown on a tool means "inherit the
// defaults".
const (
	SandboxLevelUnknown        SandboxLevel = iota
	SandboxLevelWorkspaceWrite              // writes in the checkout and a private temp directory
	SandboxLevelReadOnly                    // writes in a private temp directory only
	SandboxLevelOff                         // no sandbox
)

var sandboxLevelNames = enumNames{"unknown", "workspace-write", "read-only", "off"}

// String returns the configuration spelling.
func (l SandboxLevel) String() string { return sandboxLevelNames.name(int(l)) }

// ParseSandboxLevel reads a sandbox value.
func ParseSandboxLevel(s string) (SandboxLevel, error) {
	i, err := sandboxLevelNames.parse("sandbox level", s)
	return SandboxLevel(i), err
}

// EnumValues implements Enum.
func (l SandboxLevel) EnumValues() []any { return sandboxLevelNames.values() }

// ConfigValue implements Enum.
func (l SandboxLevel) ConfigValue() any { return sandboxLevelNames.configValue(int(l)) }

// SetConfigValue implements EnumSetter.
func (l *SandboxLevel) SetConfigValue(v any) error { return setEnum(l, v, sandboxLevelNames) }

// AutoMode is conversation.tools.auto (jp q --auto): which kinds of tool
// run without asking.
type AutoMode int

// Auto modes; each includes the ones before it.
const (
	AutoModeUnknown AutoMode = iota
	AutoModeOff              // every tool's run key as it is
	AutoModeRead             // read-only tools
	AutoModeEdit             // also file edits inside the checkout
	AutoModeAll              // also sandboxed commands
)

var autoModeNames = enumNames{"unknown", "off", "read", "edit", "all"}

// String returns the configuration spelling.
func (m AutoMode) String() string { return autoModeNames.name(int(m)) }

// ParseAutoMode reads an auto value.
func ParseAutoMode(s string) (AutoMode, error) {
	i, err := autoModeNames.parse("auto mode", s)
	return AutoMode(i), err
}

// EnumValues implements Enum.
func (m AutoMode) EnumValues() []any { return autoModeNames.values() }

// ConfigValue implements Enum.
func (m AutoMode) ConfigValue() any { return autoModeNames.configValue(int(m)) }

// SetConfigValue implements EnumSetter.
func (m *AutoMode) SetConfigValue(v any) error { return setEnum(m, v, autoModeNames) }
