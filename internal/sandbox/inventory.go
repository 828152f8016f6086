package sandbox

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"sort"
	"strconv"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicerules"
)

// HostsPerSubBlock is the number of tpu7x-standard-4t hosts in one
// reservation sub-block (one 4x4x4 partition).
const HostsPerSubBlock = 16

// Host health values, as the Compute API and the sandbox controls name them.
const (
	HostHealthy   = "HEALTHY"
	HostDegraded  = "DEGRADED"
	HostUnhealthy = "UNHEALTHY"
)

// Inventory is the sandbox's picture of a project: one GKE cluster and the
// TPU7x All Capacity mode reservations it can use. It is read from a YAML
// (or JSON) file; DefaultInventory and PodInventory ship with the sandbox.
type Inventory struct {
	Project       string `json:"project"`
	ProjectNumber string `json:"projectNumber"`
	Region        string `json:"region"`
	Zone          string `json:"zone"`
	Cluster       string `json:"cluster"`
	// ClusterVersion is the GKE version clusters.get reports; empty means
	// DefaultClusterVersion.
	ClusterVersion string        `json:"clusterVersion,omitempty"`
	Reservations   []Reservation `json:"reservations"`
}

// DefaultClusterVersion is the GKE version the sandbox cluster runs unless
// the inventory says otherwise: one that forms super-slices (from
// 1.35.2-gke.1842000) and sub-slices (from 1.36.0-gke.3712000).
const DefaultClusterVersion = "1.36.1-gke.1045000"

// Reservation is a zonal TPU7x reservation in All Capacity mode.
type Reservation struct {
	Name   string  `json:"name"`
	Blocks []Block `json:"blocks"`
}

// Block is a reservation block: a group of sub-blocks with full ICI reach.
type Block struct {
	Name      string     `json:"name"`
	SubBlocks []SubBlock `json:"subBlocks"`
}

// SubBlock is 16 hosts: one 4x4x4 partition.
type SubBlock struct {
	Name string `json:"name"`
	// HostHealth overrides the health of some hosts, by index 0..15;
	// the others are HEALTHY.
	HostHealth map[string]string `json:"hostHealth,omitempty"`
	// Maintenance is PENDING when the sub-block has maintenance announced
	// (that performMaintenance can start); empty when it has none.
	Maintenance string `json:"maintenance,omitempty"`
}

//go:embed inventories/default.yaml
var defaultInventoryYAML []byte

//go:embed inventories/pod.yaml
var podInventoryYAML []byte

// DefaultInventory is one reservation with two blocks of four sub-blocks.
func DefaultInventory() *Inventory { return mustParseInventory(defaultInventoryYAML) }

// PodInventory is one reservation with one block of 144 sub-blocks: a full
// 9216-chip Ironwood pod, for benchmarks at scale.
func PodInventory() *Inventory { return mustParseInventory(podInventoryYAML) }

// PodsInventory is pods full pods (at least one): PodInventory's
// reservation with pods blocks of its 144 sub-blocks, the first its
// pod-block and the others pod-block-2, pod-block-3 and so on (each a pod
// of 9216 chips, 2304 hosts), for benchmarks of a fleet of pods.
func PodsInventory(pods int) *Inventory {
	inv := PodInventory()
	res := &inv.Reservations[0]
	first := res.Blocks[0]
	for i := 2; i <= pods; i++ {
		b := Block{Name: PodBlockName(i), SubBlocks: append([]SubBlock(nil), first.SubBlocks...)}
		res.Blocks = append(res.Blocks, b)
	}
	return inv
}

// PodBlockName is the name of pod i (1-based) of PodsInventory.
func PodBlockName(i int) string {
	if i <= 1 {
		return "pod-block"
	}
	return fmt.Sprintf("pod-block-%d", i)
}

// LoadInventory reads an inventory file, or a built-in one by name
// ("default" or "pod").
func LoadInventory(pathOrName string) (*Inventory, error) {
	switch pathOrName {
	case "", "default":
		return DefaultInventory(), nil
	case "pod":
		return PodInventory(), nil
	}
	b, err := os.ReadFile(pathOrName)
	if err != nil {
		return nil, err
	}
	inv, err := ParseInventory(b)
	if err != nil {
		return nil, fmt.Errorf("inventory %s: %w", pathOrName, err)
	}
	return inv, nil
}

// ParseInventory reads and checks an inventory document.
func ParseInventory(b []byte) (*Inventory, error) {
	var inv Inventory
	if err := yaml.UnmarshalStrict(b, &inv); err != nil {
		return nil, err
	}
	return &inv, inv.check()
}

func mustParseInventory(b []byte) *Inventory {
	inv, err := ParseInventory(b)
	if err != nil {
		panic(err)
	}
	return inv
}

func (inv *Inventory) check() error {
	for name, v := range map[string]string{"project": inv.Project, "projectNumber": inv.ProjectNumber, "region": inv.Region, "zone": inv.Zone, "cluster": inv.Cluster} {
		if v == "" {
			return fmt.Errorf("%s is required", name)
		}
	}
	seen := map[string]bool{}
	for _, r := range inv.Reservations {
		for _, b := range r.Blocks {
			for _, s := range b.SubBlocks {
				key := r.Name + "/" + b.Name + "/" + s.Name
				if seen[key] {
					return fmt.Errorf("sub-block %s is listed twice", key)
				}
				seen[key] = true
				for idx, h := range s.HostHealth {
					i, err := strconv.Atoi(idx)
					if err != nil || i < 0 || i >= HostsPerSubBlock {
						return fmt.Errorf("sub-block %s: host index %q is not 0..%d", key, idx, HostsPerSubBlock-1)
					}
					if h != HostHealthy && h != HostDegraded && h != HostUnhealthy {
						return fmt.Errorf("sub-block %s: host %s health %q is not HEALTHY, DEGRADED or UNHEALTHY", key, idx, h)
					}
				}
				if s.Maintenance != "" && s.Maintenance != MaintenancePending {
					return fmt.Errorf("sub-block %s: maintenance %q is not PENDING (or empty for none)", key, s.Maintenance)
				}
			}
		}
	}
	if len(seen) == 0 {
		return fmt.Errorf("no sub-blocks: add reservations with blocks and sub-blocks")
	}
	return nil
}

// subBlockState is the live state of one sub-block.
type subBlockState struct {
	Reservation, Block, Name string
	// Hosts holds each host's health, index 0..15.
	Hosts [HostsPerSubBlock]string
	// NodePool is the pool that occupies the sub-block, "" when free.
	NodePool string
	// maint is the sub-block's maintenance and faults (compute_maintenance.go).
	maint maintenanceState
}

// Path is the reservation path GKE takes for sub-block targeting.
func (s *subBlockState) Path(project string) string {
	return fmt.Sprintf("projects/%s/reservations/%s/reservationBlocks/%s/reservationSubBlocks/%s", project, s.Reservation, s.Block, s.Name)
}

// PartitionID is the 32-hex partition ID GKE gives the sub-block's nodes.
// It is derived from the sub-block, so it is stable across runs.
func (s *subBlockState) PartitionID() string {
	return opaqueID("partition", s.Reservation, s.Block, s.Name)[:32]
}

// SubPartitionID is the 32-hex ID of partition idx of the shape (one of
// slicerules.PartitionShapes) in the sub-block: for 4x4x4 the sub-block's
// PartitionID, for the smaller shapes one derived from it, so that every
// ID is stable across runs and nests under the sub-block's.
func (s *subBlockState) SubPartitionID(shape string, idx int) string {
	if shape == slicerules.SubBlockShape {
		return s.PartitionID()
	}
	return opaqueID("partition", s.Reservation, s.Block, s.Name, shape, strconv.Itoa(idx))[:32]
}

// count returns how many hosts have each health.
func (s *subBlockState) count() (healthy, degraded, unhealthy int) {
	for _, h := range s.Hosts {
		switch h {
		case HostDegraded:
			degraded++
		case HostUnhealthy:
			unhealthy++
		default:
			healthy++
		}
	}
	return healthy, degraded, unhealthy
}

// health is the sub-block's health as the Compute API reports it.
func (s *subBlockState) health() string {
	_, degraded, unhealthy := s.count()
	switch {
	case unhealthy > 0:
		return "UNHEALTHY"
	case degraded > 0:
		return "DEGRADED"
	default:
		return "HEALTHY"
	}
}

// opaqueID is a stable hex identifier standing for GCE's opaque topology
// and partition IDs.
func opaqueID(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// newSubBlockStates expands an inventory into live sub-block states, in
// inventory order.
func newSubBlockStates(inv *Inventory) []*subBlockState {
	var out []*subBlockState
	for _, r := range inv.Reservations {
		for _, b := range r.Blocks {
			for _, s := range b.SubBlocks {
				st := &subBlockState{Reservation: r.Name, Block: b.Name, Name: s.Name}
				for i := range st.Hosts {
					st.Hosts[i] = HostHealthy
				}
				idx := make([]string, 0, len(s.HostHealth))
				for k := range s.HostHealth {
					idx = append(idx, k)
				}
				sort.Strings(idx)
				for _, k := range idx {
					i, _ := strconv.Atoi(k)
					st.Hosts[i] = s.HostHealth[k]
				}
				if s.Maintenance == MaintenancePending {
					st.maint = pendingMaintenance(time.Now())
				}
				out = append(out, st)
			}
		}
	}
	return out
}
