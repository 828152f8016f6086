// Package topology owns the arithmetic and the rules of Ironwood (TPU7x)
// dynamic-slice topologies. It is pure: no I/O, no Terraform, no Kubernetes.
//
// A topology is written AxBxC (for example "4x8x8"). tpu7x slices come in two
// families. A super-slice joins whole 4x4x4 partitions of 64 chips, one per
// reservation sub-block: every dimension is a multiple of 4, the dimensions
// never decrease (A ≤ B ≤ C) and the slice holds at most 9216 chips. A
// sub-slice lies inside one sub-block and has one of four fixed shapes,
// 2x2x1, 2x2x2, 2x2x4 or 2x4x4 (shapes.go). Every tpu7x-standard-4t VM (a
// Kubernetes node, or host) carries 4 chips and every chip 2 TensorCores.
package topology

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// The tpu7x constants that every rule and derived figure is built from.
const (
	// SliceType is the value of a Slice's spec.type for Ironwood.
	SliceType = "tpu7x"
	// PartitionTopology is the shape of one partition (one reservation sub-block).
	PartitionTopology = "4x4x4"
	// DimensionMultiple is the factor every dimension must be a multiple of.
	DimensionMultiple = 4
	// MaxChips is the largest slice: a full Ironwood pod.
	MaxChips = 9216
	// ChipsPerPartition is the number of chips in one 4x4x4 partition.
	ChipsPerPartition = 64
	// MachineType is the machine type of a dynamic-slicing node: 4 chips.
	MachineType = "tpu7x-standard-4t"
	// ChipsPerHost is the number of chips on one tpu7x-standard-4t VM.
	ChipsPerHost = 4
	// HostsPerPartition is the number of nodes in one partition (one sub-block node pool).
	HostsPerPartition = ChipsPerPartition / ChipsPerHost
	// TensorCoresPerChip is the number of TensorCores on one tpu7x chip.
	TensorCoresPerChip = 2
	// MaxPartitions is the number of partitions in the largest slice.
	MaxPartitions = MaxChips / ChipsPerPartition
)

// Rule names one of the rules a topology string can break.
type Rule string

// The rules, in the order they are checked.
const (
	RuleFormat   Rule = "format"
	RuleMultiple Rule = "multiple-of-4"
	RuleOrder    Rule = "non-decreasing"
	RuleMaxChips Rule = "max-chips"
	// RuleSubSlice: a permutation of a sub-slice shape, which is fixed.
	RuleSubSlice Rule = "sub-slice-shape"
	// RuleVersion: the cluster's GKE version cannot form the slice.
	RuleVersion Rule = "gke-version"
)

// Error reports a topology that breaks a rule. Its message quotes the value,
// names the rule and says how to fix it.
type Error struct {
	Value  string
	Rule   Rule
	Detail string
}

func (e *Error) Error() string {
	return fmt.Sprintf("topology %q: %s", e.Value, e.Detail)
}

// Topology is a parsed AxBxC shape.
type Topology struct {
	A, B, C int
}

// Parse reads the form AxBxC: exactly three decimal integers greater than
// zero, without signs, spaces or leading zeros, joined by a lower-case "x".
// It checks the form only; Validate checks the tpu7x rules.
func Parse(s string) (Topology, error) {
	formatErr := func(why string) error {
		return &Error{Value: s, Rule: RuleFormat, Detail: why + `; expected the form AxBxC with three positive integers, for example "4x4x8"`}
	}
	// Mistakes of form that are easy to make and easy to name.
	switch {
	case s == "":
		return Topology{}, formatErr("the value is empty")
	case strings.TrimSpace(s) == "":
		return Topology{}, formatErr("the value is only spaces")
	case strings.ContainsAny(s, " \t\n\r"):
		return Topology{}, formatErr(fmt.Sprintf("has spaces: remove them (write %q)", strings.Join(strings.Fields(s), "")))
	case strings.Contains(s, "X"):
		return Topology{}, formatErr(fmt.Sprintf("uses an upper-case X: use a lower-case x (write %q)", strings.ReplaceAll(s, "X", "x")))
	case strings.ContainsRune(s, '×'):
		return Topology{}, formatErr(fmt.Sprintf("uses the sign ×: use a lower-case x (write %q)", strings.ReplaceAll(s, "×", "x")))
	}
	parts := strings.Split(s, "x")
	if len(parts) != 3 {
		return Topology{}, formatErr(fmt.Sprintf("has %d dimension(s), not 3", len(parts)))
	}
	var dims [3]int
	for i, p := range parts {
		if p == "" {
			return Topology{}, formatErr(fmt.Sprintf("dimension %d is empty", i+1))
		}
		for _, r := range p {
			if r < '0' || r > '9' {
				return Topology{}, formatErr(fmt.Sprintf("dimension %d (%q) is not a decimal integer", i+1, p))
			}
		}
		if p[0] == '0' {
			return Topology{}, formatErr(fmt.Sprintf("dimension %d (%q) is zero or has a leading zero", i+1, p))
		}
		n, err := strconv.Atoi(p)
		if err != nil || n > MaxChips {
			// A single dimension above MaxChips can never be valid; keeping
			// dimensions small also keeps every product far from overflow.
			return Topology{}, &Error{Value: s, Rule: RuleMaxChips, Detail: fmt.Sprintf(
				"dimension %d (%s) alone exceeds the tpu7x maximum of %d chips; use a smaller topology such as \"16x24x24\"", i+1, p, MaxChips)}
		}
		dims[i] = n
	}
	return Topology{A: dims[0], B: dims[1], C: dims[2]}, nil
}

// ParseTPU7x parses s and checks every tpu7x rule.
func ParseTPU7x(s string) (Topology, error) {
	t, err := Parse(s)
	if err != nil {
		return Topology{}, err
	}
	if err := t.Validate(); err != nil {
		return Topology{}, err
	}
	return t, nil
}

// Validate checks the tpu7x rules. A sub-slice shape (2x2x1, 2x2x2, 2x2x4,
// 2x4x4) is valid as written. Any other topology is a super-slice: every
// dimension a multiple of 4, the dimensions in non-decreasing order, and at
// most 9216 chips.
func (t Topology) Validate() error {
	s := t.String()
	if t.SubSlice() {
		return nil
	}
	if sub := subSliceFor(t); sub != "" {
		return &Error{Value: s, Rule: RuleSubSlice, Detail: fmt.Sprintf(
			"sub-slice shapes are fixed, with no other order of the dimensions; write %q (the sub-slice shapes are %s)", sub, subSliceList())}
	}
	for _, d := range []int{t.A, t.B, t.C} {
		if d <= 0 || d%DimensionMultiple != 0 {
			lower := d / DimensionMultiple * DimensionMultiple
			upper := lower + DimensionMultiple
			fix := fmt.Sprintf("use %d", upper)
			if lower > 0 {
				fix = fmt.Sprintf("use %d or %d", lower, upper)
			}
			return &Error{Value: s, Rule: RuleMultiple, Detail: fmt.Sprintf(
				"every dimension of a super-slice must be a multiple of %d, and %d is not; %s. A slice smaller than a sub-block is a sub-slice, of exactly one of the shapes %s",
				DimensionMultiple, d, fix, subSliceList())}
		}
	}
	if t.A > t.B || t.B > t.C {
		return &Error{Value: s, Rule: RuleOrder, Detail: fmt.Sprintf(
			"dimensions must be in non-decreasing order (A ≤ B ≤ C); write the same shape as %q", t.Sorted().String())}
	}
	if chips := t.Chips(); chips > MaxChips {
		return &Error{Value: s, Rule: RuleMaxChips, Detail: fmt.Sprintf(
			"%d chips exceed the tpu7x maximum of %d chips (A×B×C ≤ %d, a full pod such as \"16x24x24\")", chips, MaxChips, MaxChips)}
	}
	return nil
}

// String writes the topology in its canonical AxBxC form.
func (t Topology) String() string {
	return fmt.Sprintf("%dx%dx%d", t.A, t.B, t.C)
}

// Sorted returns the same shape with its dimensions in non-decreasing order.
func (t Topology) Sorted() Topology {
	a, b, c := t.A, t.B, t.C
	if a > b {
		a, b = b, a
	}
	if b > c {
		b, c = c, b
	}
	if a > b {
		a, b = b, a
	}
	return Topology{A: a, B: b, C: c}
}

// Chips is A×B×C.
func (t Topology) Chips() int { return t.A * t.B * t.C }

// Partitions is the number of partition IDs a slice of this topology lists:
// for a super-slice the 4x4x4 partitions (reservation sub-blocks) it is
// made of, A×B×C / 64; for a sub-slice 1, the ID of a partition of its own
// shape.
func (t Topology) Partitions() int {
	if t.SubSlice() {
		return 1
	}
	return t.Chips() / ChipsPerPartition
}

// Hosts is the number of tpu7x-standard-4t VMs (Kubernetes nodes): chips / 4.
func (t Topology) Hosts() int { return t.Chips() / ChipsPerHost }

// TensorCores is the number of TensorCores: chips × 2.
func (t Topology) TensorCores() int { return t.Chips() * TensorCoresPerChip }

// AcceleratorType is the TPU_ACCELERATOR_TYPE a workload on this slice sees,
// for example "tpu7x-128" for 4x4x4.
func (t Topology) AcceleratorType() string {
	return fmt.Sprintf("%s-%d", SliceType, t.TensorCores())
}

// NodeSelector is the node selector that pins a pod to the named slice.
// With an empty slice name it selects any slice of this topology, which is
// what a multislice JobSet with the exclusive-topology annotation wants.
func (t Topology) NodeSelector(sliceName string) map[string]string {
	sel := map[string]string{
		wellknown.LabelAccelerator:   SliceType,
		wellknown.LabelSliceTopology: t.String(),
	}
	if sliceName != "" {
		sel[wellknown.LabelSlice] = sliceName
	}
	return sel
}

// PodAnnotations are the annotations a pod on a slice of this topology carries.
func (t Topology) PodAnnotations() map[string]string {
	return map[string]string{wellknown.AnnotationSliceTopology: t.String()}
}
