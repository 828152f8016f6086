package testsupport

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestStartSandboxBoundsTheStart(t *testing.T) {
	t.Parallel()
	_, err := startSandbox(10*time.Millisecond, func(ctx context.Context) (*struct{}, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a start that waits for its context: %v, want the deadline", err)
	}
	if !strings.Contains(err.Error(), "make sandbox-bin") {
		t.Errorf("the failure %q does not name make sandbox-bin", err)
	}
}

func TestStartSandboxReturnsTheSandbox(t *testing.T) {
	t.Parallel()
	want := &struct{ name string }{"sb"}
	got, err := startSandbox(time.Second, func(ctx context.Context) (*struct{ name string }, error) {
		if _, ok := ctx.Deadline(); !ok {
			t.Error("the start's context has no deadline")
		}
		return want, nil
	})
	if err != nil || got != want {
		t.Errorf("startSandbox = %v, %v; want the started sandbox", got, err)
	}
}

func TestStopSandboxStops(t *testing.T) {
	stopped := false
	StopSandbox(func() { stopped = true })
	if !stopped {
		t.Error("StopSandbox did not call stop")
	}
}
