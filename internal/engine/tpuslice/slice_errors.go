package tpuslice

import "errors"

// ErrSelection is matched (errors.Is) by every SelectionError.
var ErrSelection = errors.New("cannot select partitions")

// ErrNotFormable is matched (errors.Is) by every NotFormableError.
var ErrNotFormable = errors.New("the slice cannot be formed")

// SelectionError is a CreateSlice that could not choose the slice's
// partitions; nothing was created. Its Detail says why, for a handler to
// show as it is.
type SelectionError struct{ Err error }

func (e *SelectionError) Error() string { return ErrSelection.Error() + ": " + e.Err.Error() }

// Detail is the cause, without the kind of error in front.
func (e *SelectionError) Detail() string { return e.Err.Error() }

func (e *SelectionError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrSelection) hold.
func (e *SelectionError) Is(target error) bool { return target == ErrSelection }

// NotFormableError is a CreateSlice refused before any Slice was made:
// the cluster's version cannot form the topology, or a listed partition
// is of another shape or held by another slice.
type NotFormableError struct{ Err error }

func (e *NotFormableError) Error() string { return ErrNotFormable.Error() + ": " + e.Err.Error() }

// Detail is the cause, without the kind of error in front.
func (e *NotFormableError) Detail() string { return e.Err.Error() }

func (e *NotFormableError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrNotFormable) hold.
func (e *NotFormableError) Is(target error) bool { return target == ErrNotFormable }
