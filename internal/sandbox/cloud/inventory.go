// Package cloud is the emulated cloud behind the sandbox's GKE and Compute
// APIs: the project's inventory of TPU7x reservations, their blocks and
// sub-blocks, and each sub-block's live state (its hosts' health, the node
// pool on it, its maintenance). It imports none of the API packages nor
// the runner (package sandbox).
package cloud

import (
	_ "embed"
	"fmt"
	"os"
	"strconv"

	"sigs.k8s.io/yaml"
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
