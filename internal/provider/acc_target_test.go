package provider

import (
	"crypto/rand"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
	"github.com/dynslice/terraform-provider-gke/internal/engine/location"
)

// The acceptance target: what the acceptance tests (TF_ACC=1) run
// against. By default it is a sandbox the test binary starts itself
// (acc_test.go). With GKE_ACC_TARGET=external it is what the provider's
// usual environment names: a GKE cluster with a TPU7x All Capacity
// reservation, or a sandbox started separately (scripts/testacc-external.sh).
//
// The tests are written against the names of the sandbox's default
// inventory (project sandbox-project, cluster ironwood in us-central1,
// reservation tpu7x-reservation, block block-a with sub-blocks
// sub-block-a1..a4, zone us-central1-a). An external target maps each of
// those names to its own (accTargetSpec.inventoryName), so the same tests
// run against a real reservation; its defaults are the sandbox's, so they
// run unchanged against a separately started sandbox.

// An external target is the provider's own environment, read as the
// provider reads it (resolveConfig): GOOGLE_PROJECT, GOOGLE_LOCATION (or
// GOOGLE_REGION / GOOGLE_ZONE), GOOGLE_CLUSTER, GOOGLE_OAUTH_ACCESS_TOKEN or
// GOOGLE_CREDENTIALS (or GOOGLE_APPLICATION_CREDENTIALS), and for a sandbox
// GOOGLE_COMPUTE_CUSTOM_ENDPOINT and GOOGLE_CONTAINER_CUSTOM_ENDPOINT; the
// tests reach its Kubernetes API as the provider does (clusters.get, then
// the Google token). And these test-only variables:
//
//	GKE_ACC_ZONE               the reservation's zone (default: the cluster's
//	                           zone, or us-central1-a for us-central1)
//	GKE_ACC_RESERVATION        a TPU7x All Capacity reservation the cluster
//	                           can use (default tpu7x-reservation)
//	GKE_ACC_RESERVATION_BLOCK  one of its blocks (default block-a)
//	GKE_ACC_SUB_BLOCKS         4 free, healthy sub-blocks of that block,
//	                           comma-separated (default sub-block-a1..a4)
//	GKE_ACC_INVENTORY          sandbox-default when the target is a sandbox
//	                           started with its default inventory
//	GKE_ACC_RUN_ID             ends the name of every object of the run
//	                           (default: 6 random letters and digits)
const (
	envAccTarget      = "GKE_ACC_TARGET"
	envAccZone        = "GKE_ACC_ZONE"
	envAccReservation = "GKE_ACC_RESERVATION"
	envAccBlock       = "GKE_ACC_RESERVATION_BLOCK"
	envAccSubBlocks   = "GKE_ACC_SUB_BLOCKS"
	envAccInventory   = "GKE_ACC_INVENTORY"
	envAccRunID       = "GKE_ACC_RUN_ID"
)

const (
	targetSandbox  = "sandbox"
	targetExternal = "external"

	// inventorySandboxDefault declares (GKE_ACC_INVENTORY) that the
	// external target is a sandbox started with its default inventory.
	inventorySandboxDefault = "sandbox-default"

	// accSubBlockCount is how many free sub-blocks of one block the
	// portable tests use at most (a 4x8x8 slice).
	accSubBlockCount = 4
)

// The sandbox default inventory's names the tests are written with.
const (
	defaultProject     = "sandbox-project"
	defaultRegion      = "us-central1"
	defaultZone        = "us-central1-a"
	defaultCluster     = "ironwood"
	defaultReservation = "tpu7x-reservation"
	defaultBlock       = "block-a"
)

var defaultSubBlocks = []string{"sub-block-a1", "sub-block-a2", "sub-block-a3", "sub-block-a4"}

// accTargetSpec is the target as the environment describes it.
type accTargetSpec struct {
	// Kind is targetSandbox or targetExternal.
	Kind string

	// The rest is for an external target only.

	// Provider is the provider configuration the environment gives (the
	// provider's own fallbacks): project, location, cluster, credentials
	// and endpoints.
	Provider clients.Config
	// Zone holds the reservation; Reservation, Block and SubBlocks (free
	// and healthy, accSubBlockCount of them) are what the tests use.
	Zone        string
	Reservation string
	Block       string
	SubBlocks   []string
	// SandboxInventory: the target is a sandbox with its default
	// inventory, so the tests that rely on its other blocks and its
	// unhealthy hosts run too.
	SandboxInventory bool
	// RunID makes the names of the objects of one run unique.
	RunID string
}

var runIDPattern = regexp.MustCompile(`^[a-z0-9]{1,8}$`)

// parseAccTarget reads the target from the environment. For an external
// target every missing variable is named at once, with what to set.
func parseAccTarget(getenv func(string) string) (accTargetSpec, error) {
	switch kind := strings.TrimSpace(getenv(envAccTarget)); kind {
	case "", targetSandbox:
		return accTargetSpec{Kind: targetSandbox}, nil
	case targetExternal:
	default:
		return accTargetSpec{}, fmt.Errorf("%s=%q: use %q (the default: the tests start a sandbox of their own) or %q (the tests run against what the provider's environment names)",
			envAccTarget, kind, targetSandbox, targetExternal)
	}

	cfg, diags := resolveConfig(providerModel{}, getenv)
	var problems []string
	for _, d := range diags.Errors() {
		problems = append(problems, d.Summary()+": "+d.Detail())
	}
	var missing []string
	need := func(value string, names []string, what string) {
		if value == "" {
			missing = append(missing, fmt.Sprintf("%s (%s; or %s)", names[0], what, strings.Join(names[1:], ", ")))
		}
	}
	need(cfg.Project, envProject, "the project of the cluster and reservation")
	need(cfg.Location, envLocation, "the cluster's location")
	need(cfg.Cluster, envCluster, "the GKE cluster")
	if cfg.AccessToken == "" && len(cfg.Credentials) == 0 && getenv("GOOGLE_APPLICATION_CREDENTIALS") == "" {
		missing = append(missing, "GOOGLE_OAUTH_ACCESS_TOKEN or GOOGLE_CREDENTIALS (Google credentials; "+
			"or GOOGLE_APPLICATION_CREDENTIALS for Application Default Credentials)")
	}

	spec := accTargetSpec{
		Kind:        targetExternal,
		Provider:    cfg,
		Zone:        strings.TrimSpace(getenv(envAccZone)),
		Reservation: orDefault(getenv(envAccReservation), defaultReservation),
		Block:       orDefault(getenv(envAccBlock), defaultBlock),
		SubBlocks:   slices.Clone(defaultSubBlocks),
		RunID:       strings.TrimSpace(getenv(envAccRunID)),
	}
	if spec.Zone == "" {
		switch {
		case location.IsZone(cfg.Location):
			spec.Zone = cfg.Location
		case cfg.Location == defaultRegion:
			spec.Zone = defaultZone
		case cfg.Location != "":
			missing = append(missing, fmt.Sprintf("%s (the zone of the reservation: the cluster's location %s is a region)", envAccZone, cfg.Location))
		}
	}
	if raw := strings.TrimSpace(getenv(envAccSubBlocks)); raw != "" {
		spec.SubBlocks = nil
		for _, s := range strings.Split(raw, ",") {
			if s = strings.TrimSpace(s); s != "" && !slices.Contains(spec.SubBlocks, s) {
				spec.SubBlocks = append(spec.SubBlocks, s)
			}
		}
		if len(spec.SubBlocks) != accSubBlockCount {
			problems = append(problems, fmt.Sprintf("%s=%q names %d distinct sub-blocks; list %d free, healthy sub-blocks of %s, separated by commas",
				envAccSubBlocks, raw, len(spec.SubBlocks), accSubBlockCount, envAccBlock))
		}
	}
	switch inv := strings.TrimSpace(getenv(envAccInventory)); inv {
	case "":
	case inventorySandboxDefault:
		spec.SandboxInventory = true
		if spec.Reservation != defaultReservation || spec.Block != defaultBlock || !slices.Equal(spec.SubBlocks, defaultSubBlocks) {
			problems = append(problems, fmt.Sprintf("%s=%s says the target is a sandbox with its default inventory: leave %s, %s and %s unset",
				envAccInventory, inventorySandboxDefault, envAccReservation, envAccBlock, envAccSubBlocks))
		}
	default:
		problems = append(problems, fmt.Sprintf("%s=%q: the only value is %q (a sandbox started with its default inventory); unset it for any other target",
			envAccInventory, inv, inventorySandboxDefault))
	}
	if spec.RunID == "" {
		spec.RunID = randomRunID()
	} else if !runIDPattern.MatchString(spec.RunID) {
		problems = append(problems, fmt.Sprintf("%s=%q: use 1 to 8 lower-case letters or digits (it ends the name of every object a run creates)", envAccRunID, spec.RunID))
	}

	if len(missing) > 0 {
		problems = append([]string{fmt.Sprintf("%s=%s needs %s", envAccTarget, targetExternal, strings.Join(missing, "; "))}, problems...)
	}
	if len(problems) > 0 {
		return accTargetSpec{}, fmt.Errorf("acceptance target: %s", strings.Join(problems, "\n  "))
	}
	return spec, nil
}

func orDefault(v, def string) string {
	if v = strings.TrimSpace(v); v != "" {
		return v
	}
	return def
}

// randomRunID is 6 lower-case letters and digits.
func randomRunID() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// external reports whether the target is external.
func (s accTargetSpec) external() bool { return s.Kind == targetExternal }

// region is the region of the cluster's location.
func (s accTargetSpec) region() string { return location.RegionOf(s.Provider.Location) }

// inventoryNames maps the default inventory's names to the target's.
// Empty for the in-process sandbox, whose names they are.
func (s accTargetSpec) inventoryNames() map[string]string {
	if !s.external() {
		return nil
	}
	m := map[string]string{
		defaultProject:     s.Provider.Project,
		defaultRegion:      s.region(),
		defaultZone:        s.Zone,
		defaultCluster:     s.Provider.Cluster,
		defaultReservation: s.Reservation,
		defaultBlock:       s.Block,
	}
	for i, sb := range defaultSubBlocks {
		m[sb] = s.SubBlocks[i]
	}
	for k, v := range m {
		if k == v {
			delete(m, k)
		}
	}
	return m
}

// nameToken is a name as it appears in a configuration or an ID: a run
// of the characters of Google and Kubernetes names.
var nameToken = regexp.MustCompile(`[A-Za-z0-9_-]+`)

// blockLabel ends the text before the name label of a resource or data
// block: resource "gke_subblock_node_pool" "
var blockLabel = regexp.MustCompile(`(?:resource|data)\s+"[^"]*"\s+"$`)

// translate replaces, in text, every name of the default inventory that
// stands alone (a whole token: "sub-block-a1", not "pool-sub-block-a1")
// with the target's name for it. Terraform addresses are left alone: a
// block's name label (resource "gke_subblock_node_pool" "sub-block-a1")
// and a reference (gke_subblock_node_pool.sub-block-a1.name), so that
// configurations translated or not, and the checks that name resources,
// agree.
func (s accTargetSpec) translate(text string) string {
	m := s.inventoryNames()
	if len(m) == 0 {
		return text
	}
	var b strings.Builder
	last := 0
	for _, loc := range nameToken.FindAllStringIndex(text, -1) {
		start, end := loc[0], loc[1]
		v, ok := m[text[start:end]]
		if !ok || (start > 0 && text[start-1] == '.') || blockLabel.MatchString(text[max(0, start-200):start]) {
			continue
		}
		b.WriteString(text[last:start])
		b.WriteString(v)
		last = end
	}
	b.WriteString(text[last:])
	return b.String()
}

// name is the name of an object a test creates: base itself against the
// in-process sandbox, which starts empty; against an external target,
// base with the run's ID, so that two runs, or what a failed run left,
// never collide.
func (s accTargetSpec) name(base string) string {
	if !s.external() {
		return base
	}
	return base + "-" + s.RunID
}

// describe is the target in one line for the test log, without secrets.
func (s accTargetSpec) describe() string {
	if !s.external() {
		return "the in-process sandbox"
	}
	endpoints := ""
	if e := s.Provider.ContainerEndpoint; e != "" {
		endpoints = ", GKE API " + e
	}
	if e := s.Provider.ComputeEndpoint; e != "" {
		endpoints += ", Compute API " + e
	}
	inv := ""
	if s.SandboxInventory {
		inv = " (a sandbox with its default inventory)"
	}
	return fmt.Sprintf("external: cluster %s in %s/%s%s, reservation %s block %s sub-blocks %s in %s, run %s%s",
		s.Provider.Cluster, s.Provider.Project, s.Provider.Location, endpoints, s.Reservation, s.Block,
		strings.Join(s.SubBlocks, ","), s.Zone, s.RunID, inv)
}
