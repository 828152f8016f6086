package kernel

import (
	"context"
	"fmt"
)

// Operation is a long-running operation of a Google API as the engine's
// waiter polls it: a Compute operation, which the clients' adapters
// return from the calls that start one, or a GKE operation, which the
// waiter reads by name (gkeOperation).
type Operation interface {
	// Name is the operation's name, for logs and errors.
	Name() string
	// State is the operation as last read (first: as the call that
	// started it answered); it reads nothing.
	State() OperationState
	// Poll reads the operation again; its error is the read's, not the
	// operation's.
	Poll(ctx context.Context) error
}

// OperationState is an operation as last read.
type OperationState struct {
	// Done says that the operation has ended; Failed, that it ended in
	// failure, with Message the API's account of it.
	Done, Failed bool
	Message      string
	// Type and Status, when known, describe the operation in progress
	// logs and in the error of a wait that ran out of time.
	Type, Status string
}

// OperationError is an operation that ended in failure.
type OperationError struct {
	// Name is the operation's; Message is the API's account of the
	// failure.
	Name, Message string
}

func (e *OperationError) Error() string {
	return fmt.Sprintf("operation %s failed: %s", e.Name, e.Message)
}
