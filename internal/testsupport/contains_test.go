package testsupport

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// errorsTB records Errorf's failures beside fakeTB's Fatal.
type errorsTB struct {
	fakeTB
	errs []string
}

func (e *errorsTB) Errorf(format string, args ...any) {
	e.errs = append(e.errs, fmt.Sprintf(format, args...))
}

func TestWantContainsPasses(t *testing.T) {
	t.Parallel()
	e := &errorsTB{fakeTB: fakeTB{TB: t}}
	WantContains(e, errors.New("creating pool p: quota exceeded"), "pool p", "quota")
	if e.failed || len(e.errs) > 0 {
		t.Errorf("WantContains failed: %q %q", e.msg, e.errs)
	}
}

func TestWantContainsNamesEachMissingPart(t *testing.T) {
	t.Parallel()
	e := &errorsTB{fakeTB: fakeTB{TB: t}}
	WantContains(e, errors.New("creating pool p: quota exceeded"), "pool p", "zone", "retry")
	if len(e.errs) != 2 || !strings.Contains(e.errs[0], `"zone"`) || !strings.Contains(e.errs[1], `"retry"`) {
		t.Errorf("failures %q, want one for \"zone\" and one for \"retry\"", e.errs)
	}
}

func TestWantContainsFailsWithoutAnError(t *testing.T) {
	t.Parallel()
	e := &errorsTB{fakeTB: fakeTB{TB: t}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		WantContains(e, nil, "quota")
	}()
	<-done
	if !e.failed || !strings.Contains(e.msg, `got no error, want one containing ["quota"]`) {
		t.Errorf("failure %q, want one saying there was no error", e.msg)
	}
}
