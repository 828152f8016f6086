package blueprint

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

const (
	sliceStackDir  = "../../examples/modules/slice-stack"
	blueprintPath  = "../../examples/blueprints/gke-tpu-7x-dynamic-slicing.yaml"
	sliceStackPath = "//examples/modules/slice-stack"
)

// The toolkit's standard inputs, which gcluster passes to every module that
// has a variable of the name, with the types its blueprint vars have.
var standardInputs = map[string]cty.Type{
	"project_id":      cty.String,
	"deployment_name": cty.String,
	"region":          cty.String,
	"zone":            cty.String,
	"labels":          cty.Map(cty.String),
}

func readSliceStack(t *testing.T) Module {
	t.Helper()
	m, err := ReadModule(sliceStackDir)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The slice-stack module takes the toolkit's standard inputs with their
// types, needs no input a blueprint cannot give, and describes them all.
func TestSliceStackTakesTheToolkitsStandardInputs(t *testing.T) {
	m := readSliceStack(t)
	for name, typ := range standardInputs {
		v, ok := m.Variables[name]
		if !ok {
			t.Errorf("no variable %q: gcluster would not pass the blueprint's %s", name, name)
			continue
		}
		if !v.Type.Equals(typ) {
			t.Errorf("variable %q is %s, the toolkit passes %s", name, v.Type.FriendlyName(), typ.FriendlyName())
		}
	}
	var required []string
	for name, v := range m.Variables {
		if v.Required {
			required = append(required, name)
		}
		if strings.TrimSpace(v.Description) == "" {
			t.Errorf("variable %q has no description (gcluster shows it)", name)
		}
	}
	slices.Sort(required)
	if want := []string{"reservation", "reservation_block", "zone"}; !slices.Equal(required, want) {
		t.Errorf("required variables %v, want %v: a new required input breaks every blueprint that uses the module", required, want)
	}
	for _, name := range []string{"workload_policy", "workload_policy_name", "node_pools", "node_pool_names", "slices",
		"tpu_chips", "tpu_chips_per_node", "tolerations", "instructions"} {
		if o, ok := m.Outputs[name]; !ok || o.Description == "" {
			t.Errorf("output %q missing or undescribed", name)
		}
	}
}

// metadata.yaml is in the toolkit's schema, names the APIs the module
// calls, and its validators name the module's variables.
func TestSliceStackMetadata(t *testing.T) {
	m := readSliceStack(t)
	md, err := ReadMetadata(sliceStackDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, svc := range []string{"compute.googleapis.com", "container.googleapis.com"} {
		if !slices.Contains(md.Spec.Requirements.Services, svc) {
			t.Errorf("spec.requirements.services %v lacks %s", md.Spec.Requirements.Services, svc)
		}
	}
	for _, v := range md.Ghpc.Validators {
		vars, _ := v.Inputs["vars"].([]any)
		for _, name := range vars {
			if _, ok := m.Variables[name.(string)]; !ok {
				t.Errorf("validator %s names %v, not a variable of the module", v.Validator, name)
			}
		}
		if v.Validator != "regex" {
			continue
		}
		re, err := regexp.Compile(v.Inputs["pattern"].(string))
		if err != nil {
			t.Fatalf("validator pattern: %v", err)
		}
		if !re.MatchString("train") || re.MatchString("Bad_Name") || re.MatchString("a-name-of-twenty-one1") {
			t.Errorf("pattern %s must accept train and refuse Bad_Name and 21 characters, as the module's name does", re)
		}
	}
}

func sliceStackUse(t *testing.T, bp Blueprint) (Group, ModuleUse) {
	t.Helper()
	for _, g := range bp.Groups {
		for _, mod := range g.Modules {
			if strings.HasSuffix(mod.Source, sliceStackPath) {
				return g, mod
			}
		}
	}
	t.Fatalf("no module of source ...%s in %s", sliceStackPath, blueprintPath)
	return Group{}, ModuleUse{}
}

// conforms says whether a literal setting converts to the variable's type,
// as Terraform converts a module argument.
func conforms(value any, typ cty.Type) error {
	data, err := json.Marshal(value)
	if err != nil {
		return err
	}
	implied, err := ctyjson.ImpliedType(data)
	if err != nil {
		return err
	}
	v, err := ctyjson.Unmarshal(data, implied)
	if err != nil {
		return err
	}
	_, err = convert.Convert(v, typ)
	return err
}

// The example blueprint gives the module only inputs it has, of their
// types, and every input it requires; its references resolve.
func TestBlueprintCallsSliceStack(t *testing.T) {
	m := readSliceStack(t)
	bp, err := ReadBlueprint(blueprintPath)
	if err != nil {
		t.Fatal(err)
	}
	group, mod := sliceStackUse(t, bp)
	for name, value := range mod.Settings {
		v, ok := m.Variables[name]
		if !ok {
			t.Errorf("setting %q is not a variable of the module", name)
			continue
		}
		if len(References(value)) > 0 {
			continue // gcluster resolves it; its type is the referenced one's
		}
		if err := conforms(value, v.Type); err != nil {
			t.Errorf("setting %q does not convert to %s: %v", name, v.Type.FriendlyName(), err)
		}
	}
	for name, v := range m.Variables {
		_, set := mod.Settings[name]
		_, global := bp.Vars[name]
		if v.Required && !set && !global {
			t.Errorf("required variable %q is neither set nor a blueprint var", name)
		}
	}
	for _, out := range mod.Outputs {
		if _, ok := m.Outputs[out]; !ok {
			t.Errorf("outputs lists %q, not an output of the module", out)
		}
	}
	if p, ok := group.Providers["gke"]; !ok || p.Source != "dynslice/gke" {
		t.Errorf("group %s configures no dynslice/gke provider: %+v", group.Name, group.Providers)
	}
	checkReferences(t, bp)
}

// checkReferences: every $(vars.X) is a blueprint var and every $(id.out)
// names a module of this or an earlier group.
func checkReferences(t *testing.T, bp Blueprint) {
	t.Helper()
	seen := map[string]bool{}
	for _, g := range bp.Groups {
		for _, mod := range g.Modules {
			seen[mod.ID] = true
		}
		var values []any
		for _, p := range g.Providers {
			values = append(values, p.Configuration)
		}
		for _, mod := range g.Modules {
			values = append(values, mod.Settings)
		}
		for _, r := range References(values) {
			if r.Source == "vars" {
				if _, ok := bp.Vars[r.Name]; !ok {
					t.Errorf("group %s: $(vars.%s) is not a blueprint var", g.Name, r.Name)
				}
			} else if !seen[r.Source] {
				t.Errorf("group %s: $(%s.%s) names no module of this or an earlier group", g.Name, r.Source, r.Name)
			}
		}
	}
}

// What gcluster passes unasked converts to the module's variables: its
// labels (ghpc_blueprint, ghpc_deployment and the blueprint's) and the
// standard string vars.
func TestToolkitValuesConvert(t *testing.T) {
	m := readSliceStack(t)
	labels := map[string]any{"ghpc_blueprint": "gke-tpu-7x-dynamic-slicing", "ghpc_deployment": "gke-tpu-7x-ds"}
	if err := conforms(labels, m.Variables["labels"].Type); err != nil {
		t.Errorf("labels: %v", err)
	}
	for _, name := range []string{"project_id", "deployment_name", "region", "zone"} {
		if err := conforms("x", m.Variables[name].Type); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
