package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
)

// handshake is Terraform's plugin handshake for protocol 6 (the values are
// the public constants Terraform and terraform-plugin-go share).
var handshake = plugin.HandshakeConfig{
	ProtocolVersion:  6,
	MagicCookieKey:   "TF_PLUGIN_MAGIC_COOKIE",
	MagicCookieValue: "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2",
}

// rawCodec passes gRPC messages through as bytes: the benchmark needs only
// the time and size of GetProviderSchema, not its decoded content.
type rawCodec struct{}

type rawMessage struct{ b []byte }

func (rawCodec) Marshal(v any) ([]byte, error) {
	m, ok := v.(*rawMessage)
	if !ok {
		return nil, fmt.Errorf("rawCodec cannot marshal %T", v)
	}
	return m.b, nil
}

func (rawCodec) Unmarshal(data []byte, v any) error {
	m, ok := v.(*rawMessage)
	if !ok {
		return fmt.Errorf("rawCodec cannot unmarshal into %T", v)
	}
	m.b = append(m.b[:0], data...)
	return nil
}

func (rawCodec) Name() string { return "proto" }

// startupRun is one start of the provider binary as Terraform starts it.
type startupRun struct {
	// Start is from exec to a connected gRPC client (the process started,
	// printed its handshake and accepted the connection, mTLS included).
	Start time.Duration
	// Schema is the GetProviderSchema call.
	Schema time.Duration
	// SchemaBytes is the size of the encoded schema response.
	SchemaBytes int
}

// startProvider starts the binary as Terraform does (go-plugin, gRPC,
// automatic mTLS), asks for its schema, and stops it.
func startProvider(ctx context.Context, binary string) (startupRun, error) {
	var run startupRun
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  handshake,
		VersionedPlugins: map[int]plugin.PluginSet{6: {}},
		Cmd:              exec.CommandContext(ctx, binary),
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         true,
		Logger:           hclog.NewNullLogger(),
		SyncStdout:       io.Discard,
		SyncStderr:       io.Discard,
	})
	defer client.Kill()

	started := time.Now()
	rpc, err := client.Client()
	if err != nil {
		return run, fmt.Errorf("starting %s: %w", binary, err)
	}
	run.Start = time.Since(started)
	grpcClient, ok := rpc.(*plugin.GRPCClient)
	if !ok {
		return run, fmt.Errorf("the provider did not speak gRPC (%T)", rpc)
	}
	var resp rawMessage
	called := time.Now()
	err = grpcClient.Conn.Invoke(ctx, "/tfplugin6.Provider/GetProviderSchema", &rawMessage{}, &resp, grpc.ForceCodec(rawCodec{}))
	run.Schema = time.Since(called)
	if err != nil {
		return run, fmt.Errorf("GetProviderSchema: %w", err)
	}
	run.SchemaBytes = len(resp.b)
	return run, nil
}

// machine describes this machine, Go and Terraform.
func machine(ctx context.Context) Machine {
	m := Machine{Cores: runtime.NumCPU(), OS: runtime.GOOS + "/" + runtime.GOARCH, Go: runtime.Version()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int
		if _, err := fmt.Sscanf(string(b), "MemTotal: %d kB", &kb); err == nil {
			m.MemoryGiB = (kb + 512*1024) / (1024 * 1024)
		}
	}
	if out, err := exec.CommandContext(ctx, "terraform", "version").Output(); err == nil {
		m.Terraform = strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	}
	return m
}

// measureStartup starts the binary runs times as Terraform does and asks
// each for its schema.
func measureStartup(ctx context.Context, binary string, runs int) (*Startup, error) {
	st := &Startup{Runs: runs}
	info, err := os.Stat(binary)
	if err != nil {
		return nil, err
	}
	st.BinaryBytes = info.Size()
	var start, schema []float64
	for range runs {
		run, err := startProvider(ctx, binary)
		if err != nil {
			return nil, err
		}
		start, schema = append(start, ms(run.Start)), append(schema, ms(run.Schema))
		st.SchemaBytes = run.SchemaBytes
	}
	st.StartMedianMs, st.StartP95Ms = percentile(start, 50), percentile(start, 95)
	st.SchemaMedianMs, st.SchemaP95Ms = percentile(schema, 50), percentile(schema, 95)
	return st, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// mib is KiB in MiB, to a tenth.
func mib(kib int64) float64 { return float64(kib*10/1024) / 10 }

// percentile is the nearest-rank percentile p (0..100] of xs.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	rank := int(float64(len(s))*p/100+0.999999) - 1
	return s[max(0, min(rank, len(s)-1))]
}
