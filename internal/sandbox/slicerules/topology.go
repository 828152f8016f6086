package slicerules

import (
	"fmt"
	"strconv"
	"strings"
)

// Topology is a slice topology AxBxC, as written.
type Topology struct {
	A, B, C int
}

// Error is a topology that GKE refuses: the value and what is wrong with
// it, as the emulated controller reports it.
type Error struct {
	Value  string
	Detail string
}

func (e *Error) Error() string { return fmt.Sprintf("topology %q: %s", e.Value, e.Detail) }

// The details of Error, after the wording of GKE's refusals.
const (
	detailForm = "is not a TPU7x slice topology: use AxBxC (three positive decimal integers without leading zeros," +
		" joined by a lower-case x), a super-slice of 4x4x4 partitions or a sub-slice: 2x2x1, 2x2x2, 2x2x4 or 2x4x4"
	detailMultiple = "each dimension of a super-slice must be a positive multiple of 4 (4x4x4, 4x4x8, 4x8x8, ...);" +
		" the sub-slice topologies are exactly 2x2x1, 2x2x2, 2x2x4 and 2x4x4"
	detailOrder    = "the dimensions must be in non-decreasing order (A ≤ B ≤ C)"
	detailMaxChips = "a slice has at most 9216 chips (a full TPU7x pod, 144 partitions)"
)

// maxDigits is the most digits a dimension can have and stay within
// MaxChips (9216 has 4), so that reading one never overflows.
const maxDigits = 4

// Parse reads the form AxBxC only: three decimal integers of ASCII digits,
// each positive and without a leading zero, joined by a lower-case "x". A
// dimension above MaxChips is refused here, since no slice can have it.
func Parse(s string) (Topology, error) {
	parts := strings.Split(s, "x")
	if len(parts) != 3 {
		return Topology{}, &Error{Value: s, Detail: detailForm}
	}
	var dims [3]int
	for i, p := range parts {
		if p == "" || p[0] == '0' || strings.Trim(p, "0123456789") != "" {
			return Topology{}, &Error{Value: s, Detail: detailForm}
		}
		if len(p) > maxDigits {
			return Topology{}, &Error{Value: s, Detail: fmt.Sprintf("dimension %s alone exceeds the chips of a slice; %s", p, detailMaxChips)}
		}
		n, err := strconv.Atoi(p)
		if err != nil {
			return Topology{}, &Error{Value: s, Detail: detailForm}
		}
		if n > MaxChips {
			return Topology{}, &Error{Value: s, Detail: fmt.Sprintf("dimension %d alone exceeds the chips of a slice; %s", n, detailMaxChips)}
		}
		dims[i] = n
	}
	return Topology{A: dims[0], B: dims[1], C: dims[2]}, nil
}

// ParseTPU7x reads s and checks GKE's rules: a sub-slice shape exactly as
// written, or a super-slice whose dimensions are multiples of 4 in
// non-decreasing order, with at most 9216 chips.
func ParseTPU7x(s string) (Topology, error) {
	t, err := Parse(s)
	if err != nil {
		return Topology{}, err
	}
	if err := t.Check(); err != nil {
		return Topology{}, err
	}
	return t, nil
}

// Check applies GKE's rules to a parsed topology.
func (t Topology) Check() error {
	if t.SubSlice() {
		return nil
	}
	for _, d := range [...]int{t.A, t.B, t.C} {
		if d <= 0 || d%DimensionMultiple != 0 {
			return &Error{Value: t.String(), Detail: detailMultiple}
		}
	}
	if t.A > t.B || t.B > t.C {
		return &Error{Value: t.String(), Detail: detailOrder}
	}
	if t.Chips() > MaxChips {
		return &Error{Value: t.String(), Detail: fmt.Sprintf("%d chips; %s", t.Chips(), detailMaxChips)}
	}
	return nil
}

// String writes the topology as AxBxC.
func (t Topology) String() string {
	return strconv.Itoa(t.A) + "x" + strconv.Itoa(t.B) + "x" + strconv.Itoa(t.C)
}

// Chips is A×B×C.
func (t Topology) Chips() int { return t.A * t.B * t.C }

// Hosts is the tpu7x-standard-4t VMs (nodes) of the slice.
func (t Topology) Hosts() int { return t.Chips() / ChipsPerHost }

// SubSlice says whether t is one of the sub-slice shapes, exactly.
func (t Topology) SubSlice() bool {
	s, ok := ShapeOf(t.String())
	return ok && s.SubSlice
}

// Family names the kind of slice: "sub-slice" or "super-slice".
func (t Topology) Family() string {
	if t.SubSlice() {
		return "sub-slice"
	}
	return "super-slice"
}

// PartitionShape is the shape of the partitions a Slice of topology t
// lists: 4x4x4 for a super-slice, its own shape for a sub-slice.
func (t Topology) PartitionShape() string {
	if t.SubSlice() {
		return t.String()
	}
	return SubBlockShape
}

// Partitions is how many partition IDs a Slice of topology t lists: 1 for
// a sub-slice, (A × B × C) / 64 for a super-slice.
func (t Topology) Partitions() int {
	if t.SubSlice() {
		return 1
	}
	return t.Chips() / ChipsPerPartition
}
