package lifeline

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// ExitWhenParentGone starts watching the process's parent (Watch, every
// DefaultInterval) and, when it is gone, writes one line to log and exits
// the process with status 0. Call it from a provider's main, not in debug
// mode: there the provider is started by hand, and outlives the shell
// that started it on purpose.
func ExitWhenParentGone(log io.Writer, name string) {
	go Watch(context.Background(), os.Getppid, DefaultInterval, func(g Gone) {
		// The line goes to the stderr Terraform gave the provider, a pipe
		// nobody reads any more: the write must fail with EPIPE, not kill
		// the process with SIGPIPE before it exits on its own terms.
		signal.Ignore(syscall.SIGPIPE)
		_, _ = fmt.Fprintln(log, Message(name, g))
		os.Exit(0)
	})
}

// Message is the line a provider logs when it exits because its parent is
// gone.
func Message(name string, g Gone) string {
	return fmt.Sprintf("[WARN] %s: the Terraform process that started this provider (pid %d) is gone (the parent is now pid %d): exiting",
		name, g.Was, g.Now)
}
