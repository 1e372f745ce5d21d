package store

import (
	"errors"
	"fmt"
)

// opError is a failure with a kind the core maps to its own errors: invalid, not_found,
// exists, busy, no_space, denied, unsupported, failed.
type opError struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

func (e *opError) Error() string { return e.Kind + ": " + e.Message }

func fail(kind, format string, args ...interface{}) error {
	return &opError{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

func asOpError(err error, what string) *opError {
	var op *opError
	if errors.As(err, &op) {
		return op
	}
	return &opError{Kind: errnoKind(err), Message: what + ": " + err.Error()}
}
