// Package blueprint reads a Terraform module's interface the way the cluster
// toolkit's gcluster does (its variables with their types, its outputs, and
// the metadata.yaml beside it), so that a test can keep the slice-stack
// module usable from a toolkit blueprint without gcluster, which is not a
// Go module that can be fetched.
package blueprint

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/zclconf/go-cty/cty"
)

// Variable is one input of a module.
type Variable struct {
	Name        string
	Type        cty.Type
	Description string
	// Required is true when the variable has no default: a blueprint must
	// set it, or gcluster must find a blueprint var of its name.
	Required bool
}

// Output is one output of a module.
type Output struct {
	Name        string
	Description string
}

// Module is a module's interface.
type Module struct {
	Variables map[string]Variable
	Outputs   map[string]Output
}

// SourceError is a module file that does not parse, or a variable whose
// type is not a Terraform type constraint.
type SourceError struct {
	Path  string
	Diags hcl.Diagnostics
}

func (e *SourceError) Error() string { return fmt.Sprintf("%s: %s", e.Path, e.Diags.Error()) }

var (
	fileSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
		{Type: "variable", LabelNames: []string{"name"}},
		{Type: "output", LabelNames: []string{"name"}},
	}}
	itemSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
		{Name: "type"}, {Name: "default"}, {Name: "description"},
	}}
)

// ReadModule reads the variables and outputs of the module in dir from its
// .tf files.
func ReadModule(dir string) (Module, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.tf"))
	if err != nil {
		return Module{}, err
	}
	if len(files) == 0 {
		return Module{}, fmt.Errorf("%s: %w", dir, os.ErrNotExist)
	}
	sort.Strings(files)
	m := Module{Variables: map[string]Variable{}, Outputs: map[string]Output{}}
	parser := hclparse.NewParser()
	for _, path := range files {
		if err := m.readFile(parser, path); err != nil {
			return Module{}, err
		}
	}
	return m, nil
}

func (m *Module) readFile(parser *hclparse.Parser, path string) error {
	f, diags := parser.ParseHCLFile(path)
	if diags.HasErrors() {
		return &SourceError{Path: path, Diags: diags}
	}
	content, _, diags := f.Body.PartialContent(fileSchema)
	if diags.HasErrors() {
		return &SourceError{Path: path, Diags: diags}
	}
	for _, block := range content.Blocks {
		attrs, _, diags := block.Body.PartialContent(itemSchema)
		if diags.HasErrors() {
			return &SourceError{Path: path, Diags: diags}
		}
		name := block.Labels[0]
		description, diags := stringAttr(attrs.Attributes["description"])
		if diags.HasErrors() {
			return &SourceError{Path: path, Diags: diags}
		}
		if block.Type == "output" {
			m.Outputs[name] = Output{Name: name, Description: description}
			continue
		}
		typ, diags := TypeOf(attrs.Attributes["type"])
		if diags.HasErrors() {
			return &SourceError{Path: path, Diags: diags}
		}
		_, hasDefault := attrs.Attributes["default"]
		m.Variables[name] = Variable{Name: name, Type: typ, Description: description, Required: !hasDefault}
	}
	return nil
}

// TypeOf is a variable's type as gcluster reads it: no type is any type,
// the bare keywords list and map are a list or map of any type, and every
// other type is a Terraform type constraint (optional attributes included).
func TypeOf(attr *hcl.Attribute) (cty.Type, hcl.Diagnostics) {
	if attr == nil {
		return cty.DynamicPseudoType, nil
	}
	switch hcl.ExprAsKeyword(attr.Expr) {
	case "list":
		return cty.List(cty.DynamicPseudoType), nil
	case "map":
		return cty.Map(cty.DynamicPseudoType), nil
	}
	typ, _, diags := typeexpr.TypeConstraintWithDefaults(attr.Expr)
	return typ, diags
}

func stringAttr(attr *hcl.Attribute) (string, hcl.Diagnostics) {
	if attr == nil {
		return "", nil
	}
	v, diags := attr.Expr.Value(nil)
	if diags.HasErrors() || v.IsNull() || v.Type() != cty.String {
		return "", diags
	}
	return v.AsString(), nil
}
