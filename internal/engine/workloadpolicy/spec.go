// Package workloadpolicy owns Compute Engine workload policies (resource
// policies with a workloadPolicy block): their documented rules, the
// defaults of dynamic slicing, their IDs, and their create, read and
// delete. It imports only the kernel of the engine.
package workloadpolicy

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"

	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

// Workload policy values, as the Compute API spells them. The provider's
// schema documentation and validators are built from these lists.
var (
	Types         = []string{"HIGH_THROUGHPUT", "HIGH_AVAILABILITY"}
	TopologyModes = []string{"PROVISION_ONLY", "AUTO_CONNECT"}
)

// ResourceNameRE is the RFC 1035 name Compute Engine resources take.
var ResourceNameRE = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$`)

// Spec is a workload policy as the user declares it.
type Spec struct {
	Project, Region, Name, Description string
	Type                               string
	AcceleratorTopology                string
	AcceleratorTopologyMode            string
}

// Policy is a workload policy as Compute Engine reports it.
type Policy struct {
	Spec
	ID       string
	SelfLink string
	// Status is Compute's (READY once made; empty when not reported).
	Status string
}

// Path is the policy's relative resource name, its Terraform ID.
func (s Spec) Path() string {
	return fmt.Sprintf("projects/%s/regions/%s/resourcePolicies/%s", s.Project, s.Region, s.Name)
}

// Workload policy values dynamic slicing uses.
const (
	HighThroughput = "HIGH_THROUGHPUT"
	ProvisionOnly  = "PROVISION_ONLY"
)

// WithDefaults fills the documented defaults of dynamic slicing into the
// spec's empty fields: type HIGH_THROUGHPUT; with it, accelerator topology
// 4x4x4; with a topology, mode PROVISION_ONLY.
func (s Spec) WithDefaults() Spec {
	if s.Type == "" {
		s.Type = HighThroughput
	}
	if s.AcceleratorTopology == "" && s.Type == HighThroughput {
		s.AcceleratorTopology = topology.PartitionTopology
	}
	if s.AcceleratorTopologyMode == "" && s.AcceleratorTopology != "" {
		s.AcceleratorTopologyMode = ProvisionOnly
	}
	return s
}

// CheckDynamicSlicing applies dynamic slicing's rule on top of the policy's
// own: PROVISION_ONLY provisions one 4x4x4 sub-block per node pool, so
// that mode takes the 4x4x4 accelerator topology only.
func CheckDynamicSlicing(s Spec) error {
	if s.AcceleratorTopology != "" && s.AcceleratorTopologyMode == ProvisionOnly && s.AcceleratorTopology != topology.PartitionTopology {
		return fmt.Errorf("accelerator_topology %q with PROVISION_ONLY: dynamic slicing provisions one 4x4x4 sub-block per node pool; use %q",
			s.AcceleratorTopology, topology.PartitionTopology)
	}
	return nil
}

// Check applies the documented rules of a workload policy: an RFC 1035
// name, a known type, an accelerator topology only with HIGH_THROUGHPUT,
// and PROVISION_ONLY only with an accelerator topology.
func Check(s Spec) error {
	if !ResourceNameRE.MatchString(s.Name) {
		return fmt.Errorf("name %q must be 1-63 lower-case letters, digits or hyphens, start with a letter and not end with a hyphen", s.Name)
	}
	if !slices.Contains(Types, s.Type) {
		return fmt.Errorf("type %q must be one of %s", s.Type, strings.Join(Types, ", "))
	}
	if s.AcceleratorTopologyMode != "" && !slices.Contains(TopologyModes, s.AcceleratorTopologyMode) {
		return fmt.Errorf("accelerator_topology_mode %q must be one of %s", s.AcceleratorTopologyMode, strings.Join(TopologyModes, ", "))
	}
	if s.AcceleratorTopology != "" && s.Type != "HIGH_THROUGHPUT" {
		return fmt.Errorf("accelerator_topology %q is only allowed with type HIGH_THROUGHPUT, not %s; set type = \"HIGH_THROUGHPUT\" or remove the topology", s.AcceleratorTopology, s.Type)
	}
	if s.AcceleratorTopologyMode == "PROVISION_ONLY" && s.AcceleratorTopology == "" {
		return errors.New(`accelerator_topology_mode PROVISION_ONLY needs an accelerator_topology; dynamic slicing uses "4x4x4"`)
	}
	return nil
}

var policyPathRE = regexp.MustCompile(`(?:^|/)projects/([^/]+)/regions/([^/]+)/resourcePolicies/([^/]+)$`)

// ParseID reads a self link, a projects/P/regions/R/resourcePolicies/N
// path, or a bare name (with the default project and region).
func ParseID(id, defaultProject, defaultRegion string) (project, region, name string, err error) {
	if m := policyPathRE.FindStringSubmatch(id); m != nil {
		return m[1], m[2], m[3], nil
	}
	if ResourceNameRE.MatchString(id) {
		if defaultProject == "" || defaultRegion == "" {
			return "", "", "", fmt.Errorf("%q is a bare name, but the provider has no default project and region (location); use projects/P/regions/R/resourcePolicies/N", id)
		}
		return defaultProject, defaultRegion, id, nil
	}
	return "", "", "", fmt.Errorf("%q is not a workload policy: use a self link, projects/P/regions/R/resourcePolicies/N, or a name", id)
}

// Of maps a resource policy of the region to a Policy.
func Of(project, region string, p *computepb.ResourcePolicy) *Policy {
	out := &Policy{
		Spec:     Spec{Project: project, Region: region, Name: p.GetName(), Description: p.GetDescription()},
		ID:       strconv.FormatUint(p.GetId(), 10),
		SelfLink: p.GetSelfLink(),
		Status:   p.GetStatus(),
	}
	if wp := p.GetWorkloadPolicy(); wp != nil {
		out.Type = wp.GetType()
		out.AcceleratorTopology = wp.GetAcceleratorTopology()
		out.AcceleratorTopologyMode = wp.GetAcceleratorTopologyMode()
	}
	return out
}
