// Command releasecheck checks .goreleaser.yml against the JSON schema of the
// GoReleaser release that tools/goreleaser pins: the schema that release
// itself generates (`goreleaser jsonschema`, committed as
// tools/goreleaser/schema-<version>.json by `make goreleaser-schema`). It is what
// `make release-check` runs in place of building all of GoReleaser (about
// 1,800 packages) on every check: it compiles in seconds, and it fails on
// what a broken config most often is (an unknown or misspelt key, a value
// of the wrong type, a missing `version: 2`). The release workflow still
// runs the real GoReleaser.
//
// Before it trusts a pass, it checks itself: copies of the file with an
// unknown key, a misspelt key deep inside and a value of the wrong type
// must each fail against the same schema, so that a schema that accepts
// anything cannot pass silently.
//
// Usage: releasecheck -schema tools/goreleaser/schema-v2.16.0.json .goreleaser.yml
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

func main() {
	schemaPath := flag.String("schema", "", "the JSON schema the pinned GoReleaser generates")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: releasecheck -schema SCHEMA.json .goreleaser.yml")
		os.Exit(2)
	}
	if err := run(*schemaPath, flag.Arg(0)); err != nil {
		fmt.Fprintf(os.Stderr, "releasecheck: %v\n", err)
		os.Exit(1)
	}
}

func run(schemaPath, configPath string) error {
	sch, err := compile(schemaPath)
	if err != nil {
		return err
	}
	raw, err := os.ReadFile(configPath)
	if err != nil {
		return err
	}
	doc, err := decodeYAML(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", configPath, err)
	}
	if err := selfTest(sch, doc); err != nil {
		return fmt.Errorf("the check cannot be trusted with %s: %w", schemaPath, err)
	}
	if err := validate(sch, doc); err != nil {
		return fmt.Errorf("%s does not match the schema of the pinned GoReleaser (%s):\n%w", configPath, schemaPath, err)
	}
	fmt.Printf("%s matches %s (and the check refused its three broken copies)\n", configPath, schemaPath)
	return nil
}

func compile(path string) (*jsonschema.Schema, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w (run `make goreleaser-schema`)", err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("file:///goreleaser-schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("file:///goreleaser-schema.json")
}

// decodeYAML reads YAML into the values a JSON decoder gives (numbers as
// json.Number), which is what the schema validates.
func decodeYAML(raw []byte) (any, error) {
	var v any
	if err := yaml.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	if v == nil {
		return nil, errors.New("empty document")
	}
	js, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(js))
}

// validate checks doc against the schema, and the one rule GoReleaser v2
// adds before its schema: `version: 2`.
func validate(sch *jsonschema.Schema, doc any) error {
	if err := sch.Validate(doc); err != nil {
		return err
	}
	m, _ := doc.(map[string]any)
	if v, ok := m["version"].(json.Number); !ok || v.String() != "2" {
		return errors.New("`version: 2` is missing: GoReleaser v2 refuses a configuration without it")
	}
	return nil
}

// selfTest breaks copies of doc in three ways that GoReleaser refuses, and
// fails unless each is refused here too.
func selfTest(sch *jsonschema.Schema, doc any) error {
	m, ok := doc.(map[string]any)
	if !ok {
		return errors.New("the configuration is not a mapping")
	}
	builds, _ := m["builds"].([]any)
	if len(builds) == 0 {
		return errors.New("the configuration has no builds to break")
	}
	breaks := []struct {
		name  string
		apply func(m map[string]any)
	}{
		{"an unknown top-level key", func(m map[string]any) { m["not_a_goreleaser_key"] = true }},
		{"a misspelt key in a build", func(m map[string]any) { build(m)["ldflag"] = []any{"-s"} }},
		{"a build's goos as a number", func(m map[string]any) { build(m)["goos"] = json.Number("1") }},
	}
	for _, b := range breaks {
		c := deepCopy(doc).(map[string]any)
		b.apply(c)
		if validate(sch, c) == nil {
			return fmt.Errorf("a copy with %s passed", b.name)
		}
	}
	return nil
}

func build(m map[string]any) map[string]any {
	return m["builds"].([]any)[0].(map[string]any)
}

func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(t))
		for k, x := range t {
			c[k] = deepCopy(x)
		}
		return c
	case []any:
		c := make([]any, len(t))
		for i, x := range t {
			c[i] = deepCopy(x)
		}
		return c
	default:
		return v
	}
}
