package bench

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/provider"
)

// A state of the stack as Terraform writes it: a data source, a pool
// and a slice of the slice-stack module, keyed by for_each.
const stackStateForFloor = `{
  "version": 4, "terraform_version": "1.11.4", "serial": 7, "lineage": "abc", "outputs": {},
  "resources": [
    {"module": "module.stack", "mode": "data", "type": "gke_reservation_sub_blocks", "name": "this",
     "provider": "provider[\"registry.terraform.io/dynslice/gke\"]",
     "instances": [{"schema_version": 0, "attributes": {"reservation": "res"}}]},
    {"module": "module.stack", "mode": "managed", "type": "gke_subblock_node_pool", "name": "this",
     "provider": "provider[\"registry.terraform.io/dynslice/gke\"]",
     "instances": [{"index_key": "sb-000", "schema_version": 0,
       "attributes": {"id": "projects/p/locations/l/clusters/c/nodePools/pool-000", "name": "pool-000", "project": "p",
         "location": "us-central1", "cluster": "c", "zone": "us-central1-a", "workload_policy": "wp",
         "reservation": "res", "reservation_block": "blk", "reservation_sub_block": "sb-000",
         "machine_type": "tpu7x-standard-4t", "node_count": 16, "node_labels": {"team": "${literally}"},
         "auto_repair": true, "auto_upgrade": false, "wait_for_partition": "LABELLED",
         "partition_state": "HEALTHY", "node_names": ["n-0", "n-1"],
         "taint": [{"key": "k", "value": "v", "effect": "NO_SCHEDULE"}]},
       "sensitive_attributes": [], "identity_schema_version": 0,
       "identity": {"project": "p", "location": "us-central1", "cluster": "c", "name": "pool-000"},
       "private": "eyJzY2hlbWFfdmVyc2lvbiI6IjAifQ==",
       "dependencies": ["module.stack.gke_workload_policy.this"]}]},
    {"module": "module.stack", "mode": "managed", "type": "gke_tpu_slice", "name": "this",
     "provider": "provider[\"registry.terraform.io/dynslice/gke\"]",
     "instances": [{"index_key": "s-00", "schema_version": 0,
       "attributes": {"name": "s-00", "topology": "4x4x8", "partitions": ["a", "b"],
         "partition_selector": {"workload_policy": "wp", "count": null}},
       "sensitive_attributes": []}]}
  ]
}`

func TestSchemaFloorOf(t *testing.T) {
	t.Parallel()
	cfgJSON, stateJSON, n, err := schemaFloorOf([]byte(stackStateForFloor), provider.TypeName, providerSchemas(t.Context()))
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("%d resources, want the 2 managed ones (the data source is the provider's work)", n)
	}
	var cfg struct {
		Terraform map[string]any                       `json:"terraform"`
		Resource  map[string]map[string]map[string]any `json:"resource"`
	}
	if err := json.Unmarshal(cfgJSON, &cfg); err != nil {
		t.Fatal(err)
	}
	pool := cfg.Resource["schemafloor_subblock_node_pool"]["r0000"]
	for _, set := range []string{"name", "workload_policy", "reservation", "auto_repair", "auto_upgrade", "wait_for_partition", "machine_type", "node_labels", "taint"} {
		if _, ok := pool[set]; !ok {
			t.Errorf("pool config lacks %s (required, optional, or with a default): %v", set, pool)
		}
	}
	for _, left := range []string{"id", "project", "location", "cluster", "partition_state", "node_names"} {
		if _, ok := pool[left]; ok {
			t.Errorf("pool config sets %s (computed, with no default): %v", left, pool)
		}
	}
	if got := pool["node_labels"]; !reflect.DeepEqual(got, map[string]any{"team": "$${literally}"}) {
		t.Errorf("node_labels = %v: a string is a template in JSON syntax, so its ${ is escaped", got)
	}
	if got := pool["taint"]; !reflect.DeepEqual(got, []any{map[string]any{"key": "k", "value": "v", "effect": "NO_SCHEDULE"}}) {
		t.Errorf("taint = %v, want the block as a list of objects", got)
	}
	slice := cfg.Resource["schemafloor_tpu_slice"]["r0001"]
	if !reflect.DeepEqual(slice["partition_selector"], map[string]any{"workload_policy": "wp"}) {
		t.Errorf("partition_selector = %v, want its one set attribute", slice["partition_selector"])
	}
	if _, ok := slice["partitions"]; ok {
		t.Errorf("slice config sets partitions (optional and computed, with no default): %v", slice)
	}

	var st tfState
	if err := json.Unmarshal(stateJSON, &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Resources) != 2 || st.Version != 4 || st.TerraformVersion != "1.11.4" {
		t.Fatalf("state: %+v", st)
	}
	r := st.Resources[0]
	if r.Type != "schemafloor_subblock_node_pool" || r.Name != "r0000" || r.Module != "" || r.Provider != `provider["registry.terraform.io/dynslice/schemafloor"]` {
		t.Errorf("resource: %+v", r)
	}
	inst := r.Instances[0]
	for _, gone := range []string{"index_key", "dependencies", "identity", "identity_schema_version"} {
		if _, ok := inst[gone]; ok {
			t.Errorf("the instance keeps %s", gone)
		}
	}
	for _, kept := range []string{"attributes", "private", "schema_version", "sensitive_attributes"} {
		if _, ok := inst[kept]; !ok {
			t.Errorf("the instance lost %s", kept)
		}
	}
}

func TestSchemaFloorOf_refuses(t *testing.T) {
	t.Parallel()
	schemas := providerSchemas(t.Context())
	for name, tc := range map[string]struct{ state, want string }{
		"not a state":  {`[]`, "the stack's state"},
		"no resource":  {`{"version": 4, "resources": []}`, "no resource"},
		"unknown type": {`{"version": 4, "resources": [{"mode": "managed", "type": "gke_other", "name": "x", "instances": []}]}`, "gke_other"},
		"template key": {`{"version": 4, "resources": [{"mode": "managed", "type": "gke_subblock_node_pool", "name": "x",
			"instances": [{"attributes": {"name": "p", "node_labels": {"${k}": "v"}}}]}]}`, "template sequence"},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, _, err := schemaFloorOf([]byte(tc.state), provider.TypeName, schemas)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one saying %q", err, tc.want)
			}
		})
	}
}
