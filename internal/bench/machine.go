package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"time"
)

func measureStartup(ctx context.Context, binary string, runs int) (Startup, error) {
	st := Startup{Runs: runs, BuildFlags: `CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" (as .goreleaser.yml)`}
	info, err := os.Stat(binary)
	if err != nil {
		return st, err
	}
	st.BinaryBytes = info.Size()
	var start, schema []float64
	for range runs {
		run, err := startProvider(ctx, binary)
		if err != nil {
			return st, err
		}
		start = append(start, ms(run.Start))
		schema = append(schema, ms(run.Schema))
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
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	rank := int(float64(len(s))*p/100+0.999999) - 1
	rank = max(0, min(rank, len(s)-1))
	return s[rank]
}

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
