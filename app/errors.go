package app

// UserError is an error the user caused and can fix: Msg is the one line
// to print, saying what is wrong and what to do.
type UserError struct {
	Msg string
	Err error
}

func (e *UserError) Error() string { return e.Msg }

// Unwrap returns the underlying error, if any.
func (e *UserError) Unwrap() error { return e.Err }

// UsageError is a user error in how a command was called (exit code 2).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }
