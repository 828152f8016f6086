package provider

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// Helpers shared by the tests of this package: expected diagnostics,
// function tests, waits on Slices, the configurations and CheckDestroy
// functions several resources' tests use, and the validator probe. The
// sandbox harness is in acc_test.go.

// wrapped matches texts, in order, as Terraform prints them in a
// diagnostic, where any space may have become a line break and other lines
// (the source location) may come between a summary and its detail.
func wrapped(texts ...string) *regexp.Regexp {
	patterns := make([]string, len(texts))
	for i, text := range texts {
		words := strings.Fields(text)
		for j, w := range words {
			words[j] = regexp.QuoteMeta(w)
		}
		patterns[i] = strings.Join(words, `\s+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(patterns, `.*`))
}

// testFunctionOutputs evaluates each expression as an output through real
// Terraform and checks its value.
func testFunctionOutputs(t *testing.T, want map[string]knownvalue.Check) {
	t.Helper()
	var config strings.Builder
	var checks []statecheck.StateCheck
	i := 0
	for expr, check := range want {
		name := "o" + strings.Repeat("x", i)
		i++
		config.WriteString("output \"" + name + "\" { value = " + expr + " }\n")
		checks = append(checks, statecheck.ExpectKnownOutputValue(name, check))
	}
	tfresource.UnitTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps:                    []tfresource.TestStep{{Config: config.String(), ConfigStateChecks: checks}},
	})
}

// testFunctionError evaluates the expression through real Terraform and
// expects it to fail with the given text.
func testFunctionError(t *testing.T, expr, text string) {
	t.Helper()
	tfresource.UnitTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []tfresource.TestStep{{
			Config:      "output \"o\" { value = " + expr + " }\n",
			ExpectError: wrapped(text),
		}},
	})
}

// rejectedTopologies are the broken topologies every topology function and
// validator must reject, with the text that names the rule.
var rejectedTopologies = map[string]string{
	"4x8x4":   `topology "4x8x4": dimensions must be in non-decreasing order (A ≤ B ≤ C); write the same shape as "4x4x8"`,
	"4x4x6":   `topology "4x4x6": every dimension of a super-slice must be a multiple of 4, and 6 is not; use 4 or 8`,
	"4x2x2":   `topology "4x2x2": sub-slice shapes are fixed, with no other order of the dimensions; write "2x2x4"`,
	"2x2x3":   `exactly one of the shapes "2x2x1", "2x2x2", "2x2x4" or "2x4x4"`,
	"8x8x256": `topology "8x8x256": 16384 chips exceed the tpu7x maximum of 9216 chips`,
	"4x4":     `topology "4x4": has 2 dimension(s), not 3; expected the form AxBxC with three positive integers`,
}

// awaitSliceState waits with a watch until the sandbox's Slice name
// reports state (its Ready condition's reason). It runs in goroutines
// beside an apply, so on a timeout (a minute) it fails the test with
// t.Error, saying what the slice reported.
func awaitSliceState(t *testing.T, name, state string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dyn, err := dynamic.NewForConfig(accRESTConfig(t))
	if err != nil {
		t.Error(err)
		return
	}
	lw := sliceListWatch(dyn.Resource(kernel.SliceGVR), name)
	last := "no Slice yet"
	_, err = watchtools.UntilWithSync(ctx, lw, &unstructured.Unstructured{}, nil, func(ev watch.Event) (bool, error) {
		u, ok := ev.Object.(*unstructured.Unstructured)
		if !ok || ev.Type == watch.Deleted {
			return false, nil
		}
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conds {
			if m, ok := c.(map[string]any); ok && m["type"] == "Ready" {
				last, _ = m["reason"].(string)
			}
		}
		return last == state, nil
	})
	if err != nil {
		t.Errorf("Slice %s did not report %s within a minute; it last reported %q: %v", name, state, last, err)
	}
}

// awaitSliceGone waits with a watch until the sandbox has no Slice named
// name; it fails the test after a minute.
func awaitSliceGone(t *testing.T, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	lw := sliceListWatch(accKubeSlices(t), name)
	gone := func(store cache.Store) (bool, error) { return len(store.List()) == 0, nil }
	if _, err := watchtools.UntilWithSync(ctx, lw, &unstructured.Unstructured{}, gone, func(ev watch.Event) (bool, error) {
		return ev.Type == watch.Deleted, nil
	}); err != nil {
		t.Fatalf("Slice %s was not deleted within a minute: %v", name, err)
	}
}

// sliceListWatch lists and watches the one Slice named name.
func sliceListWatch(slices dynamic.ResourceInterface, name string) cache.ListerWatcher {
	selector := fields.OneTermEqualSelector("metadata.name", name).String()
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.FieldSelector = selector
			return slices.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = selector
			return slices.Watch(ctx, o)
		},
	}
}

// slicePools is a policy and one pool per listed sub-block of a block,
// named poolName(prefix, sub-block), with the resource names of the
// sub-blocks. The names of the default inventory are given; accConfig
// maps them to the target's.
func slicePools(prefix, reservation, block string, subBlocks ...string) string {
	return fmt.Sprintf("resource \"gke_workload_policy\" \"p\" {\n  name = %q\n}\n", accName(prefix)+"-policy") +
		subBlockPools(prefix, reservation, block, subBlocks...)
}

// subBlockPools is slicePools without the policy: the pools of more
// blocks under the same policy.
func subBlockPools(prefix, reservation, block string, subBlocks ...string) string {
	var b strings.Builder
	for _, s := range subBlocks {
		fmt.Fprintf(&b, `
resource "gke_subblock_node_pool" %q {
  name                  = %q
  zone                  = "us-central1-a"
  workload_policy       = gke_workload_policy.p.name
  reservation           = %q
  reservation_block     = %q
  reservation_sub_block = %q
}
`, s, poolName(prefix, s), reservation, block, s)
	}
	return b.String()
}

// poolName is the name slicePools gives the pool of a sub-block (named
// as in the default inventory): <prefix>-<sub-block>, with the run's ID
// after the prefix against an external target.
func poolName(prefix, subBlock string) string { return accName(prefix) + "-" + subBlock }

// sliceUID gives two checks of Slice name: record notes its UID, and same
// fails when the Slice has another UID since (it was replaced).
func sliceUID(t *testing.T, name string) (record, same func(*terraform.State) error) {
	var uid string
	record = func(*terraform.State) error {
		s, err := accEngine(t).Slices().ReadSlice(context.Background(), name)
		if err == nil {
			uid = s.UID
		}
		return err
	}
	same = func(*terraform.State) error {
		s, err := accEngine(t).Slices().ReadSlice(context.Background(), name)
		if err == nil && s.UID != uid {
			return fmt.Errorf("Slice %s was replaced (UID %s, was %s)", name, s.UID, uid)
		}
		return err
	}
	return record, same
}

// checkSlicesDestroyed checks that no Slice and no slice label is left.
func checkSlicesDestroyed(t *testing.T) func(*terraform.State) error {
	return func(s *terraform.State) error {
		e := accEngine(t)
		for _, rs := range s.RootModule().Resources {
			if rs.Type != "gke_tpu_slice" {
				continue
			}
			if _, err := e.Slices().ReadSlice(context.Background(), rs.Primary.ID); !errors.Is(err, kernel.ErrNotFound) {
				return fmt.Errorf("Slice %s still exists (%v)", rs.Primary.ID, err)
			}
			if n, err := accNodeCount(t, wellknown.LabelSlice+"="+rs.Primary.ID); err != nil || n != 0 {
				return fmt.Errorf("%d nodes keep the label of slice %s (%v)", n, rs.Primary.ID, err)
			}
		}
		return checkPoolsDestroyed(t)(s)
	}
}

// checkAllDestroyed checks that nothing of the state is left: its Kueue
// objects (gke_kueue_slicing, by name), Slices, node pools and workload
// policies.
func checkAllDestroyed(t *testing.T) func(*terraform.State) error {
	return func(s *terraform.State) error {
		for _, rs := range s.RootModule().Resources {
			if rs.Type != "gke_kueue_slicing" {
				continue
			}
			name := rs.Primary.Attributes["name"]
			for _, r := range []string{"topologies", "resourceflavors", "admissionchecks", "clusterqueues"} {
				if kueueObject(t, r, "", name) != nil {
					return fmt.Errorf("%s %s is left after destroy", r, name)
				}
			}
		}
		return checkSlicesDestroyed(t)(s)
	}
}

// poolConfig is a policy and one pool, named accName(policy) and
// accName(pool); target is the reservation part of the pool (reservation,
// block, optional sub-block).
func poolConfig(policy, pool, target string) string {
	return accConfig(fmt.Sprintf(`
resource "gke_workload_policy" "p" {
  name = %q
}

resource "gke_subblock_node_pool" "np" {
  name            = %q
  zone            = "us-central1-a"
  workload_policy = gke_workload_policy.p.self_link
  %s
}
`, accName(policy), accName(pool), target))
}

func checkPoolsDestroyed(t *testing.T) func(*terraform.State) error {
	return func(s *terraform.State) error {
		e := accEngine(t)
		for _, rs := range s.RootModule().Resources {
			if rs.Type != "gke_subblock_node_pool" {
				continue
			}
			if _, err := e.NodePools().Read(context.Background(), rs.Primary.ID); !errors.Is(err, kernel.ErrNotFound) {
				return fmt.Errorf("node pool %s still exists (%v)", rs.Primary.ID, err)
			}
			nodes, err := accNodeCount(t, wellknown.LabelNodePool+"="+rs.Primary.Attributes["name"])
			if err != nil || nodes != 0 {
				return fmt.Errorf("node pool %s left %d nodes (%v)", rs.Primary.ID, nodes, err)
			}
		}
		return checkPoliciesDestroyed(t)(s)
	}
}

func checkPoliciesDestroyed(t *testing.T) func(*terraform.State) error {
	return func(s *terraform.State) error {
		e := accEngine(t)
		for _, rs := range s.RootModule().Resources {
			if rs.Type != "gke_workload_policy" {
				continue
			}
			a := rs.Primary.Attributes
			_, err := e.Policies().Read(context.Background(), a["project"], a["region"], a["name"])
			if !errors.Is(err, kernel.ErrNotFound) {
				return fmt.Errorf("workload policy %s still exists (%v)", rs.Primary.ID, err)
			}
		}
		return nil
	}
}

// subSlice is a gke_tpu_slice, named accName(name), of the topology
// chosen from the pools.
func subSlice(resource, name, topo string, pools ...string) string {
	refs := make([]string, len(pools))
	for i, p := range pools {
		refs[i] = fmt.Sprintf("gke_subblock_node_pool.%s.name", p)
	}
	return fmt.Sprintf(`
resource "gke_tpu_slice" %q {
  name     = %q
  topology = %q
  partition_selector {
    node_pools = [%s]
  }
}
`, resource, accName(name), topo, strings.Join(refs, ", "))
}

// slicePartition is the partition (of the slice's shape) a slice holds,
// read from the sandbox.
func slicePartition(t *testing.T, slice, shape string) clusterread.Partition {
	t.Helper()
	parts, err := accEngine(t).Cluster().ListPartitions(context.Background(), clusterread.PartitionFilter{Shape: shape})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		if p.Slice == slice && p.SlicePartition == p.ID {
			return p
		}
	}
	t.Fatalf("no %s partition is held by slice %s", shape, slice)
	return clusterread.Partition{}
}

// kueueObject reads a Kueue object from the sandbox's API server, or nil.
func kueueObject(t *testing.T, resource, namespace, name string) *unstructured.Unstructured {
	t.Helper()
	dyn, err := dynamic.NewForConfig(accRESTConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	var r dynamic.ResourceInterface = dyn.Resource(kernel.KueueGVR(resource))
	if namespace != "" {
		r = dyn.Resource(kernel.KueueGVR(resource)).Namespace(namespace)
	}
	u, err := r.Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// probeProviderFactories serve the real provider plus gke_validator_probe, a
// test-only resource that carries the plan-time validators the slice
// resource uses, so that they are exercised through real Terraform.
var probeProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"gke": providerserver.NewProtocol6WithError(&probeProvider{GKEProvider: probeTestProvider}),
}

type probeProvider struct{ *GKEProvider }

func (p *probeProvider) Resources(ctx context.Context) []func() resource.Resource {
	return append(p.GKEProvider.Resources(ctx), func() resource.Resource { return &validatorProbe{} })
}

type validatorProbe struct{}

type validatorProbeModel struct {
	Topology     types.String `tfsdk:"topology"`
	PartitionIDs types.List   `tfsdk:"partition_ids"`
}

func (r *validatorProbe) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_validator_probe"
}

func (r *validatorProbe) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"topology": schema.StringAttribute{Required: true, Validators: []validator.String{TopologyValidator()}},
		"partition_ids": schema.ListAttribute{
			ElementType: types.StringType,
			Optional:    true,
			Validators:  []validator.List{PartitionIDsValidator(path.MatchRoot("topology"))},
		},
	}}
}

func (r *validatorProbe) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m validatorProbeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

func (r *validatorProbe) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (r *validatorProbe) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m validatorProbeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

func (r *validatorProbe) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
