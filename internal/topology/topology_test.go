package topology

import (
	"errors"
	"maps"
	"strings"
	"testing"
)

func TestParseTPU7x_Valid(t *testing.T) {
	cases := []struct {
		in                              string
		chips, partitions, hosts, cores int
		accelerator                     string
	}{
		{"4x4x4", 64, 1, 16, 128, "tpu7x-128"},
		{"4x4x8", 128, 2, 32, 256, "tpu7x-256"},
		{"4x8x8", 256, 4, 64, 512, "tpu7x-512"},
		{"8x8x8", 512, 8, 128, 1024, "tpu7x-1024"},
		{"8x16x16", 2048, 32, 512, 4096, "tpu7x-4096"},
		{"16x24x24", 9216, 144, 2304, 18432, "tpu7x-18432"},
		{"4x4x576", 9216, 144, 2304, 18432, "tpu7x-18432"},
		// Sub-slices: one partition ID of their own shape each.
		{"2x2x1", 4, 1, 1, 8, "tpu7x-8"},
		{"2x2x2", 8, 1, 2, 16, "tpu7x-16"},
		{"2x2x4", 16, 1, 4, 32, "tpu7x-32"},
		{"2x4x4", 32, 1, 8, 64, "tpu7x-64"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			topo, err := ParseTPU7x(tc.in)
			if err != nil {
				t.Fatalf("ParseTPU7x(%q) error: %v", tc.in, err)
			}
			if got := topo.String(); got != tc.in {
				t.Errorf("String() = %q, want %q", got, tc.in)
			}
			if got := topo.Chips(); got != tc.chips {
				t.Errorf("Chips() = %d, want %d", got, tc.chips)
			}
			if got := topo.Partitions(); got != tc.partitions {
				t.Errorf("Partitions() = %d, want %d", got, tc.partitions)
			}
			if got := topo.Hosts(); got != tc.hosts {
				t.Errorf("Hosts() = %d, want %d", got, tc.hosts)
			}
			if got := topo.TensorCores(); got != tc.cores {
				t.Errorf("TensorCores() = %d, want %d", got, tc.cores)
			}
			if got := topo.AcceleratorType(); got != tc.accelerator {
				t.Errorf("AcceleratorType() = %q, want %q", got, tc.accelerator)
			}
		})
	}
}

func TestParseTPU7x_Rejected(t *testing.T) {
	cases := []struct {
		in   string
		rule Rule
		msg  string // a fragment the user must see
	}{
		{"", RuleFormat, "the value is empty"},
		{"   ", RuleFormat, "the value is only spaces"},
		{"4x4", RuleFormat, "has 2 dimension(s), not 3"},
		{"4x4x4x4", RuleFormat, "has 4 dimension(s), not 3"},
		{"4x4x", RuleFormat, "dimension 3 is empty"},
		{"4X4X4", RuleFormat, `uses an upper-case X: use a lower-case x (write "4x4x4")`},
		{"4x4X8", RuleFormat, `use a lower-case x (write "4x4x8")`},
		{"4×4×8", RuleFormat, `uses the sign ×: use a lower-case x (write "4x4x8")`},
		{"4x-4x4", RuleFormat, `dimension 2 ("-4") is not a decimal integer`},
		{" 4x4x4", RuleFormat, `has spaces: remove them (write "4x4x4")`},
		{"4 x 4 x 8", RuleFormat, `has spaces: remove them (write "4x4x8")`},
		{"4x4x8.0", RuleFormat, "is not a decimal integer"},
		{"0x4x4", RuleFormat, "is zero or has a leading zero"},
		{"04x4x4", RuleFormat, "is zero or has a leading zero"},
		{"4x4x99999999999999999999999", RuleMaxChips, "alone exceeds the tpu7x maximum of 9216 chips"},
		{"4x4x9220", RuleMaxChips, "alone exceeds"},
		{"4x4x6", RuleMultiple, "multiple of 4, and 6 is not; use 4 or 8"},
		{"2x4x8", RuleMultiple, "2 is not; use 4"},
		{"2x2x3", RuleMultiple, `exactly one of the shapes "2x2x1", "2x2x2", "2x2x4" or "2x4x4"`},
		{"1x1x1", RuleMultiple, "sub-slice"},
		{"4x2x2", RuleSubSlice, `sub-slice shapes are fixed, with no other order of the dimensions; write "2x2x4"`},
		{"1x2x2", RuleSubSlice, `write "2x2x1"`},
		{"2x1x2", RuleSubSlice, `write "2x2x1"`},
		{"4x4x2", RuleSubSlice, `write "2x4x4"`},
		{"2x2x8", RuleMultiple, "is not; use 4"},
		{"4x8x4", RuleOrder, `non-decreasing order (A ≤ B ≤ C); write the same shape as "4x4x8"`},
		{"8x4x4", RuleOrder, `"4x4x8"`},
		{"8x8x256", RuleMaxChips, "16384 chips exceed the tpu7x maximum of 9216 chips"},
		{"24x24x24", RuleMaxChips, "13824 chips exceed"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			_, err := ParseTPU7x(tc.in)
			if err == nil {
				t.Fatalf("ParseTPU7x(%q) accepted an invalid topology", tc.in)
			}
			var te *Error
			if !errors.As(err, &te) {
				t.Fatalf("error %T is not *topology.Error", err)
			}
			if te.Rule != tc.rule {
				t.Errorf("rule = %q, want %q (%v)", te.Rule, tc.rule, err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not contain %q", err, tc.msg)
			}
			if !strings.HasPrefix(err.Error(), "topology \"") {
				t.Errorf("error %q does not quote the value first", err)
			}
		})
	}
}

func TestValidate_ZeroValue(t *testing.T) {
	err := Topology{}.Validate()
	var te *Error
	if !errors.As(err, &te) || te.Rule != RuleMultiple || !strings.Contains(err.Error(), "0 is not; use 4") {
		t.Fatalf("Validate of zero topology = %v, want a multiple-of-4 error suggesting 4", err)
	}
}

func TestSorted(t *testing.T) {
	for in, want := range map[Topology]Topology{
		{8, 4, 4}:    {4, 4, 8},
		{4, 8, 4}:    {4, 4, 8},
		{16, 8, 4}:   {4, 8, 16},
		{4, 16, 8}:   {4, 8, 16},
		{4, 8, 16}:   {4, 8, 16},
		{24, 16, 24}: {16, 24, 24},
	} {
		if got := in.Sorted(); got != want {
			t.Errorf("%v.Sorted() = %v, want %v", in, got, want)
		}
	}
}

func TestWorkloadWiring(t *testing.T) {
	topo := Topology{4, 8, 8}
	want := map[string]string{
		"cloud.google.com/gke-tpu-accelerator": "tpu7x",
		"cloud.google.com/gke-tpu-topology":    "4x8x8",
		"cloud.google.com/gke-tpu-slice":       "train-a",
	}
	if got := topo.NodeSelector("train-a"); !maps.Equal(got, want) {
		t.Errorf("NodeSelector = %v, want %v", got, want)
	}
	delete(want, "cloud.google.com/gke-tpu-slice")
	if got := topo.NodeSelector(""); !maps.Equal(got, want) {
		t.Errorf("NodeSelector(\"\") = %v, want %v", got, want)
	}
	wantAnn := map[string]string{"cloud.google.com/gke-tpu-slice-topology": "4x8x8"}
	if got := topo.PodAnnotations(); !maps.Equal(got, wantAnn) {
		t.Errorf("PodAnnotations = %v, want %v", got, wantAnn)
	}
}

func TestCheckPartitionIDs(t *testing.T) {
	cases := []struct {
		name string
		topo string
		ids  []string
		msg  string // empty: accepted
	}{
		{"one partition", "4x4x4", []string{"a"}, ""},
		{"four partitions", "4x8x8", []string{"a", "b", "c", "d"}, ""},
		{"too few", "4x8x8", []string{"a", "b", "c"},
			`topology "4x8x8" needs exactly 4 partition(s) (4×8×8 chips / 64 chips per partition), but 3 partition ID(s) are given; add 1 partition ID(s), or use a topology of 3 partition(s): 4x4x12`},
		{"too many", "4x4x4", []string{"a", "b"},
			`needs exactly 1 partition(s) (4×4×4 chips / 64 chips per partition), but 2 partition ID(s) are given; remove 1 partition ID(s), or use a topology of 2 partition(s): 4x4x8`},
		{"none", "4x4x8", nil, "but 0 partition ID(s) are given; add 2 partition ID(s)"},
		{"duplicate", "4x8x8", []string{"a", "b", "a", "d"}, `partition ID "a" is listed twice (indexes 0 and 2)`},
		{"empty", "4x4x8", []string{"a", " "}, "partition ID at index 1 is empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			topo, err := ParseTPU7x(tc.topo)
			if err != nil {
				t.Fatal(err)
			}
			err = topo.CheckPartitionIDs(tc.ids)
			if tc.msg == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var pe *PartitionError
			if !errors.As(err, &pe) {
				t.Fatalf("error = %v (%T), want *PartitionError", err, err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not contain %q", err, tc.msg)
			}
		})
	}
}

func TestForPartitions(t *testing.T) {
	cases := map[int]string{
		0:   "",
		-1:  "",
		145: "",
		1:   "4x4x4",
		2:   "4x4x8",
		4:   "4x4x16,4x8x8",
		8:   "4x4x32,4x8x16,8x8x8",
		144: "4x4x576,4x8x288,4x12x192,4x16x144,4x24x96,4x32x72,4x36x64,4x48x48,8x8x144,8x12x96,8x16x72,8x24x48,8x32x36,12x12x64,12x16x48,12x24x32,16x16x36,16x24x24",
	}
	for n, want := range cases {
		var names []string
		for _, topo := range ForPartitions(n) {
			if err := topo.Validate(); err != nil {
				t.Errorf("ForPartitions(%d) returned invalid %v: %v", n, topo, err)
			}
			if topo.Partitions() != n {
				t.Errorf("ForPartitions(%d) returned %v with %d partitions", n, topo, topo.Partitions())
			}
			names = append(names, topo.String())
		}
		if got := strings.Join(names, ","); got != want {
			t.Errorf("ForPartitions(%d) = %s, want %s", n, got, want)
		}
	}
}

// Every valid topology must have a whole number of partitions, and every
// shape ForPartitions finds must round-trip through the parser.
func TestAllValidTopologiesAreWholePartitions(t *testing.T) {
	count := 0
	for n := 1; n <= MaxPartitions; n++ {
		for _, topo := range ForPartitions(n) {
			got, err := ParseTPU7x(topo.String())
			if err != nil || got != topo {
				t.Fatalf("round trip of %v: %v, %v", topo, got, err)
			}
			if topo.Chips()%ChipsPerPartition != 0 || topo.Chips()%ChipsPerHost != 0 {
				t.Fatalf("%v is not a whole number of partitions and hosts", topo)
			}
			count++
		}
	}
	if count == 0 {
		t.Fatal("no valid topologies found")
	}
}

func FuzzParse(f *testing.F) {
	for _, seed := range []string{"4x4x4", "16x24x24", "4x8x4", "4x4", "", "0x0x0", "04x4x4", "9999999999x1x1", "4x4x4x", "x", "1x1x1"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		topo, err := Parse(s)
		if err != nil {
			var te *Error
			if !errors.As(err, &te) || te.Value != s {
				t.Fatalf("Parse(%q) error %v does not carry the value", s, err)
			}
			return
		}
		// Whatever parses is canonical: printing it gives back the input.
		if topo.String() != s {
			t.Fatalf("Parse(%q) = %v, which prints as %q", s, topo, topo.String())
		}
		if topo.A <= 0 || topo.B <= 0 || topo.C <= 0 || topo.A > MaxChips || topo.B > MaxChips || topo.C > MaxChips {
			t.Fatalf("Parse(%q) = %v out of range", s, topo)
		}
		if err := topo.Validate(); err == nil {
			// A sub-slice (2x2x1…2x4x4, GKE's own spelling) has fewer
			// chips than a partition and its own order; a super-slice is
			// whole partitions, A ≤ B ≤ C.
			if topo.Chips() > MaxChips || (!topo.SubSlice() && (topo.Chips()%ChipsPerPartition != 0 || topo.A > topo.B || topo.B > topo.C)) {
				t.Fatalf("Validate accepted %v", topo)
			}
		}
	})
}
