package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// goBenchPackages hold the Go benchmarks of the pure logic.
var goBenchPackages = []string{"./internal/topology", "./internal/engine", "./internal/engine/clusterread", "./internal/engine/tpuslice", "./internal/provider"}

var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op(?:\s+([\d.]+) B/op)?(?:\s+([\d.]+) allocs/op)?`)

// goBenchmarks runs `go test -bench` on the pure logic and parses it.
func goBenchmarks(ctx context.Context, root string) ([]GoBenchmark, error) {
	args := append([]string{"test", "-run", "^$", "-bench", ".", "-benchmem", "-count", "1"}, goBenchPackages...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return parseGoBench(out), nil
}

func parseGoBench(out []byte) []GoBenchmark {
	var res []GoBenchmark
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		b := GoBenchmark{Name: m[1]}
		b.NsPerOp, _ = strconv.ParseFloat(m[2], 64)
		b.BytesPerOp, _ = strconv.ParseFloat(m[3], 64)
		b.AllocsPerOp, _ = strconv.ParseFloat(m[4], 64)
		res = append(res, b)
	}
	return res
}
