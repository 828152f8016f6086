package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// process is a child program of the sandbox. It runs in its own process
// group and is killed by the kernel if the sandbox process dies, so that
// nothing is left behind however the sandbox ends.
type process struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
	// tail is the end of what the process wrote, for the error that says
	// it ended.
	tail *outputTail
}

func startProcess(name string, log io.Writer, bin string, args ...string) (*process, error) {
	return startProcessEnv(name, log, nil, bin, args...)
}

// startProcessEnv is startProcess with variables added to the environment.
func startProcessEnv(name string, log io.Writer, env []string, bin string, args ...string) (*process, error) {
	cmd := exec.Command(bin, args...)
	tail := &outputTail{}
	out := io.MultiWriter(log, tail)
	cmd.Stdout, cmd.Stderr = out, out
	// The output goes through a pipe now; a grandchild that kept it open
	// must not keep Wait (and so exited) from seeing the child end.
	cmd.WaitDelay = 5 * time.Second
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s (%s): %w", name, bin, err)
	}
	p := &process{name: name, cmd: cmd, done: make(chan struct{}), tail: tail}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the process has ended, and how.
func (p *process) exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// stop asks the process group to terminate, then kills it after grace.
func (p *process) stop(grace time.Duration) {
	if p == nil {
		return
	}
	pgid := -p.cmd.Process.Pid
	_ = syscall.Kill(pgid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = syscall.Kill(pgid, syscall.SIGKILL)
		<-p.done
	}
}

// freePort finds a free loopback port for a child to listen on, outside
// the kernel's ephemeral range where it can: a port in that range, free
// when asked, can be taken by any outgoing connection (the sandbox makes
// thousands) before the child binds it, and the child exits with "address
// already in use". Ports below the range are handed out only to those who
// name them. Where the range cannot be read, the kernel picks.
func freePort() (int, error) {
	if lo, ok := ephemeralLow(); ok && lo > 2048 {
		for range 64 {
			port := lo/2 + rand.IntN(lo-lo/2)
			if l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
				_ = l.Close()
				return port, nil
			}
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	addr, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		return 0, fmt.Errorf("unexpected listener address %v", l.Addr())
	}
	return addr.Port, nil
}

// ephemeralLow is the first port of the kernel's ephemeral range.
func ephemeralLow() (int, bool) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0, false
	}
	lo, err := strconv.Atoi(f[0])
	return lo, err == nil
}

// waitFor calls check until it succeeds, the process ends, or ctx is done.
func waitFor(ctx context.Context, p *process, what string, check func(context.Context) error) error {
	var last error
	for {
		if last = check(ctx); last == nil {
			return nil
		}
		if ended, err := p.exited(); ended {
			return fmt.Errorf("%s exited while waiting for %s: %v; the end of its output:%s", p.name, what, err, p.tail)
		}
		select {
		case <-ctx.Done():
			return errors.Join(fmt.Errorf("timed out waiting for %s", what), last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func httpOK(ctx context.Context, client *http.Client, url, token, want string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
		return fmt.Errorf("%s: %s: %s", url, resp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}
