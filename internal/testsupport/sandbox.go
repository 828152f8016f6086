package testsupport

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"k8s.io/klog/v2"
)

// SandboxStartTimeout bounds the start of a sandbox in a TestMain.
const SandboxStartTimeout = 2 * time.Minute

// StartSandbox starts the sandbox of a package's tests in its TestMain:
// it calls start with a context that ends after SandboxStartTimeout, and
// when start fails, says so (naming `make sandbox-bin`, which builds the
// sandbox's parts) and exits. start is the caller's, as the sandbox's own
// tests cannot import a package that imports the sandbox.
func StartSandbox[S any](start func(context.Context) (S, error)) S {
	sb, err := startSandbox(SandboxStartTimeout, start)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return sb
}

// startSandbox is StartSandbox, with the failure returned.
func startSandbox[S any](timeout time.Duration, start func(context.Context) (S, error)) (S, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	sb, err := start(ctx)
	if err != nil {
		return sb, fmt.Errorf("the tests need the local sandbox (make sandbox-bin builds its parts); starting it: %w", err)
	}
	return sb, nil
}

// StopSandbox stops the sandbox of a TestMain quietly. Watches stopped a
// moment ago may not have ended yet: once the sandbox stops, client-go
// would log their reconnects, noise after the tests' own output, which is
// what CI shows. So klog is silenced first.
func StopSandbox(stop func()) {
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	stop()
}
