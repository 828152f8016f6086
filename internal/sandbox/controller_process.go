package sandbox

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// The ecosystem's controllers that the sandbox runs with webhooks (JobSet,
// Kueue) start the same way: in the background while the rest of Start
// goes on, bounded, with their errors naming their log; and they are ready
// once their health probe answers and their webhook server serves the
// certificate that their webhooks trust.

// controllerRun is where a controller's files are and what it serves.
type controllerRun struct {
	config, kubeconfig      string
	webhookAddr, healthAddr string
}

// newControllerRun makes dir, the folder of a controller's files, writes
// files (name: content) there (its serving certificate and key), and picks
// free loopback ports: the first for its webhook server, the second for its
// health probes, extra more for the caller (ports holds them all).
func newControllerRun(dir string, files map[string][]byte, extra int) (run *controllerRun, ports []int, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, err
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			return nil, nil, err
		}
	}
	ports = make([]int, 2+extra)
	for i := range ports {
		if ports[i], err = freePort(); err != nil {
			return nil, nil, err
		}
	}
	return &controllerRun{
		config:      filepath.Join(dir, "config.yaml"),
		kubeconfig:  filepath.Join(dir, "kubeconfig"),
		webhookAddr: fmt.Sprintf("127.0.0.1:%d", ports[0]),
		healthAddr:  fmt.Sprintf("127.0.0.1:%d", ports[1]),
	}, ports, nil
}

// args are the controller's command-line arguments: its configuration
// file, its kubeconfig and info-level logging (development logging, the
// controllers' default, logs at debug level).
func (r *controllerRun) args() []string {
	return []string{"--config=" + r.config, "--kubeconfig=" + r.kubeconfig, "--zap-log-level=info"}
}

// startInBackground runs start (a controller's whole start, from its CRDs
// to its webhooks) in the background, bounded by timeout, with the writer
// of the log named part; wait returns its error, which names the
// controller (title) and where its log is; stop cancels a start still
// under way and waits for it to end (for Stop).
func (sb *Sandbox) startInBackground(ctx context.Context, part, title string, timeout time.Duration, log io.Writer,
	start func(ctx context.Context, w io.Writer) error) (wait func() error, stop func()) {
	// Here, not in the goroutine: logWriter is not safe for concurrent use.
	w, err := sb.logWriter(part, log)
	if err != nil {
		return func() error { return err }, func() {}
	}
	where := "its log " + filepath.Join(sb.Dir, part+".log")
	if log != nil {
		where = "the sandbox log"
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	done := make(chan struct{})
	var startErr error
	go func() {
		defer close(done)
		defer cancel()
		if startErr = start(ctx, w); startErr != nil {
			startErr = fmt.Errorf("starting %s: %w; see %s", title, startErr, where)
		}
	}()
	return func() error {
			<-done
			return startErr
		}, func() {
			cancel()
			<-done
		}
}

// awaitControllerServing waits until the controller of proc (named what in
// errors) is ready: its health probe answers, which means its webhook
// server has started, and that server serves a certificate signed by ca,
// the one its webhooks will trust.
func awaitControllerServing(ctx context.Context, proc *process, what string, run *controllerRun, ca []byte) error {
	health := &http.Client{Timeout: 2 * time.Second}
	return waitFor(ctx, proc, what+" to be ready", func(ctx context.Context) error {
		if err := httpOK(ctx, health, "http://"+run.healthAddr+"/readyz", "", "ok"); err != nil {
			return err
		}
		return tlsServes(ctx, run.webhookAddr, ca)
	})
}
