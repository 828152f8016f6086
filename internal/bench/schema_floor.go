package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"

	"github.com/dynslice/terraform-provider-gke/internal/bench/floor"
	"github.com/dynslice/terraform-provider-gke/internal/provider"
)

// The schema floor (internal/bench/floor.NewSchemaFloor) plans the stack's
// own resources, from a copy of its state and of its configuration's
// values, through a provider that has the stack's schemas and does no
// work. Beside the plan floor, which plans as many resources of a small
// schema, it says how much of a plan's time is the size of the schemas
// (Terraform's and the framework's walk of every value) and how much is
// this provider's own work.

// newSchemaFloorWorkspace builds the schema floor's provider into the
// mirror of ws and makes a working directory of its own, beside the
// stack's, with the same Terraform and environment.
func newSchemaFloorWorkspace(ctx context.Context, root, dir string, ws *workspace) (*workspace, error) {
	if _, err := buildInto(ctx, root, filepath.Join(dir, "mirror"), floor.SchemaName, "./cmd/gke-bench-schema-floor"); err != nil {
		return nil, fmt.Errorf("building the schema floor's provider: %w", err)
	}
	sw := &workspace{dir: filepath.Join(dir, floor.SchemaName), cliRC: ws.cliRC, env: ws.env, verbose: ws.verbose}
	if err := os.MkdirAll(sw.dir, 0o755); err != nil {
		return nil, err
	}
	cfg, err := json.MarshalIndent(map[string]any{"terraform": schemaFloorTerraformBlock()}, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(sw.dir, "main.tf.json"), cfg, 0o600); err != nil {
		return nil, err
	}
	if _, err := sw.terraform(ctx, nil, "init", "-input=false", "-no-color"); err != nil {
		return nil, err
	}
	return sw, nil
}

func schemaFloorTerraformBlock() map[string]any {
	return map[string]any{"required_providers": map[string]any{
		floor.SchemaName: map[string]any{"source": "dynslice/" + floor.SchemaName, "version": mirrorVersion},
	}}
}

// copyToSchemaFloor writes into the schema floor's directory the state of
// the stack in stackDir and a configuration of the same values, and
// returns how many resources they hold.
func copyToSchemaFloor(ctx context.Context, stackDir, floorDir string) (int, error) {
	raw, err := os.ReadFile(filepath.Join(stackDir, "terraform.tfstate"))
	if err != nil {
		return 0, fmt.Errorf("reading the stack's state: %w", err)
	}
	cfg, state, n, err := schemaFloorOf(raw, provider.TypeName, providerSchemas(ctx))
	if err != nil {
		return 0, err
	}
	if err := os.WriteFile(filepath.Join(floorDir, "main.tf.json"), cfg, 0o600); err != nil {
		return 0, err
	}
	return n, os.WriteFile(filepath.Join(floorDir, "terraform.tfstate"), state, 0o600)
}

// providerSchemas is the schema of each of the provider's resource types,
// by type name.
func providerSchemas(ctx context.Context) map[string]schema.Schema {
	out := map[string]schema.Schema{}
	p := provider.New("bench")()
	for _, f := range p.Resources(ctx) {
		r := f()
		var md resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: provider.TypeName}, &md)
		var s resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &s)
		out[md.TypeName] = s.Schema
	}
	return out
}

// tfState is the part of a Terraform state (format 4) that the schema
// floor rewrites; an instance keeps every field but its index key, its
// dependencies and its identity (the schema floor has none): its
// attributes, private data and schema version stay.
type tfState struct {
	Version          int             `json:"version"`
	TerraformVersion string          `json:"terraform_version"`
	Serial           int             `json:"serial"`
	Lineage          string          `json:"lineage"`
	Outputs          json.RawMessage `json:"outputs"`
	Resources        []tfResource    `json:"resources"`
}

type tfResource struct {
	Module    string                       `json:"module,omitempty"`
	Mode      string                       `json:"mode"`
	Type      string                       `json:"type"`
	Name      string                       `json:"name"`
	Provider  string                       `json:"provider"`
	Instances []map[string]json.RawMessage `json:"instances"`
}

// schemaFloorOf turns the stack's state (from provider from, with the
// schemas by type name) into the schema floor's configuration (JSON
// syntax) and state: each managed resource instance of the stack becomes
// a resource of the schema floor of the same attributes and private data, and its configuration sets what a configuration can set
// (required and optional attributes, but for computed ones without a
// default, which it leaves to the state as the stack's configuration
// does). A plan of it then has no changes.
func schemaFloorOf(stateJSON []byte, from string, schemas map[string]schema.Schema) (config, state []byte, n int, err error) {
	var st tfState
	if err := json.Unmarshal(stateJSON, &st); err != nil {
		return nil, nil, 0, fmt.Errorf("the stack's state: %w", err)
	}
	out := tfState{Version: st.Version, TerraformVersion: st.TerraformVersion, Serial: 1, Lineage: st.Lineage + "-schema-floor", Outputs: json.RawMessage("{}")}
	resources := map[string]map[string]any{}
	providerAddr := fmt.Sprintf("provider[%q]", floor.SchemaAddress)
	for _, r := range st.Resources {
		if r.Mode != "managed" {
			continue
		}
		s, ok := schemas[r.Type]
		if !ok {
			return nil, nil, 0, fmt.Errorf("the stack's state has a resource of type %s, which the provider does not have", r.Type)
		}
		typ := floor.SchemaTypeName(from, r.Type)
		if resources[typ] == nil {
			resources[typ] = map[string]any{}
		}
		for _, inst := range r.Instances {
			var attrs map[string]any
			d := json.NewDecoder(bytes.NewReader(inst["attributes"]))
			d.UseNumber()
			if err := d.Decode(&attrs); err != nil {
				return nil, nil, 0, fmt.Errorf("%s.%s: attributes: %w", r.Type, r.Name, err)
			}
			cfg, err := configOf(attrs, objectSchema{s.Attributes, s.Blocks})
			if err != nil {
				return nil, nil, 0, fmt.Errorf("%s.%s: %w", r.Type, r.Name, err)
			}
			name := fmt.Sprintf("r%04d", n)
			n++
			resources[typ][name] = cfg
			copied := map[string]json.RawMessage{}
			for k, v := range inst {
				switch k {
				case "index_key", "dependencies", "identity", "identity_schema_version":
				default:
					copied[k] = v
				}
			}
			out.Resources = append(out.Resources, tfResource{Mode: "managed", Type: typ, Name: name, Provider: providerAddr,
				Instances: []map[string]json.RawMessage{copied}})
		}
	}
	if n == 0 {
		return nil, nil, 0, fmt.Errorf("the stack's state has no resource")
	}
	sort.SliceStable(out.Resources, func(i, j int) bool {
		a, b := out.Resources[i], out.Resources[j]
		return a.Type < b.Type || (a.Type == b.Type && a.Name < b.Name)
	})
	if config, err = json.MarshalIndent(map[string]any{"terraform": schemaFloorTerraformBlock(), "resource": resources}, "", "  "); err != nil {
		return nil, nil, 0, err
	}
	if state, err = json.MarshalIndent(out, "", "  "); err != nil {
		return nil, nil, 0, err
	}
	return config, state, n, nil
}

// objectSchema is the attributes and blocks of a schema or of a nested
// object.
type objectSchema struct {
	attrs  map[string]schema.Attribute
	blocks map[string]schema.Block
}

// configOf is the configuration (JSON syntax) of an object of the schema
// whose state is obj: the values of its required attributes, of its
// optional ones but the computed ones without a default, and of its
// blocks, each nested object likewise.
func configOf(obj map[string]any, s objectSchema) (map[string]any, error) {
	out := map[string]any{}
	for name, a := range s.attrs {
		v := obj[name]
		if v == nil || !configurable(a) {
			continue
		}
		var err error
		switch a := a.(type) {
		case schema.SingleNestedAttribute:
			out[name], err = nestedConfig(v, objectSchema{attrs: a.Attributes})
		case schema.ListNestedAttribute:
			out[name], err = nestedConfigs(v, objectSchema{attrs: a.NestedObject.Attributes})
		case schema.SetNestedAttribute:
			out[name], err = nestedConfigs(v, objectSchema{attrs: a.NestedObject.Attributes})
		case schema.MapNestedAttribute:
			out[name], err = nestedConfigMap(v, objectSchema{attrs: a.NestedObject.Attributes})
		default:
			out[name], err = literal(v)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	for name, b := range s.blocks {
		v := obj[name]
		if v == nil {
			continue
		}
		var err error
		switch b := b.(type) {
		case schema.SingleNestedBlock:
			out[name], err = nestedConfig(v, objectSchema{b.Attributes, b.Blocks})
		case schema.ListNestedBlock:
			out[name], err = nestedConfigs(v, objectSchema{b.NestedObject.Attributes, b.NestedObject.Blocks})
		case schema.SetNestedBlock:
			out[name], err = nestedConfigs(v, objectSchema{b.NestedObject.Attributes, b.NestedObject.Blocks})
		default:
			err = fmt.Errorf("a block of a kind the schema floor does not know (%T)", b)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if l, ok := out[name].([]any); ok && len(l) == 0 {
			delete(out, name)
		}
	}
	return out, nil
}

// configurable says whether a configuration sets the attribute: it is
// required, or optional and either not computed or with a default (a
// computed attribute without one is left to the state, as the stack's
// configuration leaves it).
func configurable(a schema.Attribute) bool {
	return a.IsRequired() || (a.IsOptional() && (!a.IsComputed() || hasDefault(a)))
}

// hasDefault says whether the attribute has a Default (every attribute
// type of resource/schema has the field, of an interface type).
func hasDefault(a schema.Attribute) bool {
	f := reflect.ValueOf(a).FieldByName("Default")
	return f.IsValid() && f.Kind() == reflect.Interface && !f.IsNil()
}

func nestedConfig(v any, s objectSchema) (any, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("an object in the state is a %T", v)
	}
	return configOf(obj, s)
}

func nestedConfigs(v any, s objectSchema) (any, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("a list in the state is a %T", v)
	}
	out := make([]any, 0, len(l))
	for i, e := range l {
		c, err := nestedConfig(e, s)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		out = append(out, c)
	}
	return out, nil
}

func nestedConfigMap(v any, s objectSchema) (any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("a map in the state is a %T", v)
	}
	out := make(map[string]any, len(m))
	for k, e := range m {
		if err := plainKey(k); err != nil {
			return nil, err
		}
		c, err := nestedConfig(e, s)
		if err != nil {
			return nil, fmt.Errorf("[%q]: %w", k, err)
		}
		out[k] = c
	}
	return out, nil
}

// literal is a state value as a configuration value in JSON syntax, where
// a string is a template: "${" and "%{" are escaped.
func literal(v any) (any, error) {
	switch v := v.(type) {
	case string:
		return strings.NewReplacer("${", "$${", "%{", "%%{").Replace(v), nil
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			var err error
			if out[i], err = literal(e); err != nil {
				return nil, err
			}
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			if err := plainKey(k); err != nil {
				return nil, err
			}
			var err error
			if out[k], err = literal(e); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return v, nil
}

// plainKey refuses a map key that JSON syntax would read as a template.
func plainKey(k string) error {
	if strings.Contains(k, "${") || strings.Contains(k, "%{") {
		return fmt.Errorf("a map key with a template sequence (%q): the schema floor cannot write it", k)
	}
	return nil
}
