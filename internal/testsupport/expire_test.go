package testsupport

import (
	"context"
	"errors"
	"testing"
)

func TestExpirable(t *testing.T) {
	t.Parallel()
	ctx, expire := Expirable(t.Context())
	if ctx.Err() != nil {
		t.Fatalf("Err before expire = %v, want nil", ctx.Err())
	}
	child, cancel := context.WithCancel(ctx)
	defer cancel()
	expire()
	expire() // a second call does nothing
	<-ctx.Done()
	<-child.Done()
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Errorf("Err after expire = %v, want context.DeadlineExceeded", ctx.Err())
	}
	if !errors.Is(child.Err(), context.DeadlineExceeded) {
		t.Errorf("child's Err after expire = %v, want context.DeadlineExceeded", child.Err())
	}

	parent, cancelParent := context.WithCancel(t.Context())
	ctx, _ = Expirable(parent)
	cancelParent()
	<-ctx.Done()
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Errorf("Err after the parent's cancel = %v, want context.Canceled", ctx.Err())
	}
}
