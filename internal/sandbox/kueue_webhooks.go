package sandbox

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

// Kueue's webhooks, admission and CRD conversion, are taken from its
// release as it ships them (bin/kueue-crds: webhook/ holds the manifests
// controller-gen writes and the kustomization that keeps the webhooks of
// workloads (pods, Jobs, JobSets, Deployments, StatefulSets and the other
// integrations) away from kube-system and kueue-system: since v0.19, a
// patch gives the pod webhook that namespaceSelector and replacements copy
// it to the others; conversion/ the CRD kustomization and the patches that
// give five of the CRDs a conversion webhook). Only the address changes: the
// release points them at a Service; the sandbox, with no cluster network,
// at Kueue's webhook server on loopback.

// Where, in the Kueue CRD directory, the webhook manifests and the CRD
// conversion patches are.
const (
	kueueWebhookDir    = "webhook"
	kueueConversionDir = "conversion"
)

// kueueNamePrefix is the prefix Kueue's release (kustomize namePrefix)
// gives its objects; Kueue's certificate manager looks its webhook
// configurations up by those names.
const kueueNamePrefix = "kueue-"

// kueueKustomization is the part of Kueue's kustomization files the sandbox
// follows: the resources, patches given inline (the webhook kustomization)
// or by file (the CRD kustomization), and the webhook kustomization's
// replacements.
type kueueKustomization struct {
	Resources []string `json:"resources"`
	Patches   []struct {
		Path   string         `json:"path"`
		Patch  string         `json:"patch"`
		Target map[string]any `json:"target"`
	} `json:"patches"`
	Replacements []kueueReplacement `json:"replacements"`
}

// kueueReplacement is a kustomize replacement as Kueue's webhook
// kustomization writes them: a field of one webhook copied to the same
// field of others, each path of the form webhooks.[name=N].field.
type kueueReplacement struct {
	Source struct {
		Kind      string `json:"kind"`
		Name      string `json:"name"`
		FieldPath string `json:"fieldPath"`
	} `json:"source"`
	Targets []kueueReplacementTarget `json:"targets"`
}

// kueueReplacementTarget is where a replacement copies its field: paths
// in one webhook configuration.
type kueueReplacementTarget struct {
	Select struct {
		Kind string `json:"kind"`
		Name string `json:"name"`
	} `json:"select"`
	FieldPaths []string `json:"fieldPaths"`
	Options    struct {
		Create bool `json:"create"`
	} `json:"options"`
}

// webhookFieldPath is the one form of field path the sandbox follows in a
// replacement: a field of a webhook chosen by name.
var webhookFieldPath = regexp.MustCompile(`^webhooks\.\[name=([^\]]+)\]\.([A-Za-z]+)$`)

// readKueueWebhooks reads the webhook configurations in dir/webhook, with
// the kustomization's patches applied, named as Kueue's release names them.
func readKueueWebhooks(dir string) ([]*unstructured.Unstructured, error) {
	wdir := filepath.Join(dir, kueueWebhookDir)
	var k kueueKustomization
	if err := readYAML(filepath.Join(wdir, "kustomization.yaml"), &k); err != nil {
		return nil, fmt.Errorf("reading Kueue's webhook kustomization: %w; %s", err, kueueCRDsHint)
	}
	configs, err := readWebhookConfigs(wdir, k.Resources, "Kueue", kueueCRDsHint)
	if err != nil {
		return nil, err
	}
	if len(configs) == 0 {
		return nil, fmt.Errorf("no webhook configuration in %s: %s", wdir, kueueCRDsHint)
	}
	for i, p := range k.Patches {
		if p.Patch == "" || p.Path != "" || p.Target != nil {
			return nil, fmt.Errorf("the webhook kustomization of Kueue, patch %d: the sandbox applies only inline patches of webhooks by name", i)
		}
		var patch unstructured.Unstructured
		if err := yaml.Unmarshal([]byte(p.Patch), &patch.Object); err != nil {
			return nil, fmt.Errorf("the webhook kustomization of Kueue, patch %d: %w", i, err)
		}
		var target *unstructured.Unstructured
		for _, c := range configs {
			if c.GetKind() == patch.GetKind() && c.GetName() == patch.GetName() {
				target = c
			}
		}
		if target == nil {
			return nil, fmt.Errorf("the webhook kustomization of Kueue, patch %d, targets %s %s, which the manifests do not hold", i, patch.GetKind(), patch.GetName())
		}
		if err := mergeWebhooksByName(target, &patch); err != nil {
			return nil, fmt.Errorf("the webhook kustomization of Kueue, patch %d: %w", i, err)
		}
	}
	for i, r := range k.Replacements {
		if err := applyWebhookReplacement(configs, r); err != nil {
			return nil, fmt.Errorf("the webhook kustomization of Kueue, replacement %d: %w", i, err)
		}
	}
	for _, c := range configs {
		c.SetName(kueueNamePrefix + c.GetName())
	}
	return configs, nil
}

// mergeWebhooksByName applies a strategic-merge patch of a webhook
// configuration as Kueue's patches write them: webhooks matched by name
// (their merge key), each field given replacing the webhook's. A patch
// that names a webhook the configuration lacks, or sets anything but
// webhooks, is refused, so that a release whose patches do more is
// noticed, not half applied.
func mergeWebhooksByName(config, patch *unstructured.Unstructured) error {
	for key := range patch.Object {
		if key != "apiVersion" && key != "kind" && key != "metadata" && key != "webhooks" {
			return fmt.Errorf("the patch sets %s; the sandbox applies only webhooks", key)
		}
	}
	webhooks, _, err := unstructured.NestedSlice(config.Object, "webhooks")
	if err != nil {
		return err
	}
	patched, _, err := unstructured.NestedSlice(patch.Object, "webhooks")
	if err != nil {
		return err
	}
	for _, pw := range patched {
		pm, ok := pw.(map[string]any)
		name, _ := pm["name"].(string)
		if !ok || name == "" {
			return fmt.Errorf("a webhook of the patch has no name")
		}
		found := false
		for _, w := range webhooks {
			if m, ok := w.(map[string]any); ok && m["name"] == name {
				for k, v := range pm {
					m[k] = v
				}
				found = true
			}
		}
		if !found {
			return fmt.Errorf("the patch names webhook %s, which %s does not hold", name, config.GetName())
		}
	}
	return unstructured.SetNestedSlice(config.Object, webhooks, "webhooks")
}

// applyWebhookReplacement copies the source webhook's field to each target
// webhook's, as kustomize does after the patches. A path of another form,
// a configuration or webhook the manifests lack, or a missing field that
// the replacement does not create, is refused, so that a release whose
// replacements do more is noticed, not half applied.
func applyWebhookReplacement(configs []*unstructured.Unstructured, r kueueReplacement) error {
	find := func(kind, name string) *unstructured.Unstructured {
		for _, c := range configs {
			if c.GetKind() == kind && c.GetName() == name {
				return c
			}
		}
		return nil
	}
	webhook := func(c *unstructured.Unstructured, path string) (map[string]any, string, error) {
		m := webhookFieldPath.FindStringSubmatch(path)
		if m == nil {
			return nil, "", fmt.Errorf("field path %q: the sandbox follows only webhooks.[name=N].field", path)
		}
		webhooks, _, _ := unstructured.NestedSlice(c.Object, "webhooks")
		for _, w := range webhooks {
			if wm, ok := w.(map[string]any); ok && wm["name"] == m[1] {
				return wm, m[2], nil
			}
		}
		return nil, "", fmt.Errorf("%s %s holds no webhook %s", c.GetKind(), c.GetName(), m[1])
	}
	src := find(r.Source.Kind, r.Source.Name)
	if src == nil {
		return fmt.Errorf("the source %s %s is not in the manifests", r.Source.Kind, r.Source.Name)
	}
	sw, field, err := webhook(src, r.Source.FieldPath)
	if err != nil {
		return err
	}
	value, ok := sw[field]
	if !ok {
		return fmt.Errorf("the source %s has no %s", r.Source.FieldPath, field)
	}
	for _, t := range r.Targets {
		c := find(t.Select.Kind, t.Select.Name)
		if c == nil {
			return fmt.Errorf("the target %s %s is not in the manifests", t.Select.Kind, t.Select.Name)
		}
		webhooks, _, _ := unstructured.NestedSlice(c.Object, "webhooks")
		for _, path := range t.FieldPaths {
			m := webhookFieldPath.FindStringSubmatch(path)
			if m == nil {
				return fmt.Errorf("field path %q: the sandbox follows only webhooks.[name=N].field", path)
			}
			found := false
			for _, w := range webhooks {
				wm, ok := w.(map[string]any)
				if !ok || wm["name"] != m[1] {
					continue
				}
				if _, has := wm[m[2]]; !has && !t.Options.Create {
					return fmt.Errorf("webhook %s has no %s, and the replacement does not create it", m[1], m[2])
				}
				wm[m[2]] = runtime.DeepCopyJSONValue(value)
				found = true
			}
			if !found {
				return fmt.Errorf("%s %s holds no webhook %s", c.GetKind(), c.GetName(), m[1])
			}
		}
		if err := unstructured.SetNestedSlice(c.Object, webhooks, "webhooks"); err != nil {
			return err
		}
	}
	return nil
}

// kueueConversion is the conversion Kueue's release gives one CRD.
type kueueConversion struct {
	// CRD is the CRD's name; Conversion its spec.conversion as shipped.
	CRD        string
	Conversion map[string]any
}

// readKueueConversions reads the conversion patches that the CRD
// kustomization in dir/conversion applies (those it leaves commented out
// are not read).
func readKueueConversions(dir string) ([]kueueConversion, error) {
	cdir := filepath.Join(dir, kueueConversionDir)
	var k kueueKustomization
	if err := readYAML(filepath.Join(cdir, "kustomization.yaml"), &k); err != nil {
		return nil, fmt.Errorf("reading Kueue's CRD kustomization: %w; %s", err, kueueCRDsHint)
	}
	var out []kueueConversion
	for _, p := range k.Patches {
		if p.Path == "" {
			return nil, errors.New("the CRD kustomization of Kueue has a patch that is not a file; the sandbox applies only conversion patches by file")
		}
		var patch unstructured.Unstructured
		if err := readYAML(filepath.Join(cdir, p.Path), &patch.Object); err != nil {
			return nil, fmt.Errorf("reading Kueue's CRD patch: %w; %s", err, kueueCRDsHint)
		}
		conv, ok, _ := unstructured.NestedMap(patch.Object, "spec", "conversion")
		spec, _, _ := unstructured.NestedMap(patch.Object, "spec")
		if patch.GetKind() != "CustomResourceDefinition" || !ok || len(spec) != 1 {
			return nil, fmt.Errorf("the CRD patch %s of Kueue does more than set a CRD's conversion, which is all the sandbox applies", p.Path)
		}
		out = append(out, kueueConversion{CRD: patch.GetName(), Conversion: conv})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no conversion webhook in %s: %s", cdir, kueueCRDsHint)
	}
	return out, nil
}

// pointConversion makes a shipped conversion call baseURL (its path kept)
// and trust caPEM, in place of the Service of the release.
func pointConversion(c kueueConversion, baseURL string, caPEM []byte) (map[string]any, error) {
	conv := runtimeDeepCopy(c.Conversion)
	path, _, _ := unstructured.NestedString(conv, "webhook", "clientConfig", "service", "path")
	if path == "" {
		return nil, fmt.Errorf("the conversion of %s calls no service path", c.CRD)
	}
	if err := unstructured.SetNestedMap(conv, map[string]any{
		"url":      baseURL + path,
		"caBundle": base64.StdEncoding.EncodeToString(caPEM),
	}, "webhook", "clientConfig"); err != nil {
		return nil, err
	}
	return conv, nil
}

func runtimeDeepCopy(m map[string]any) map[string]any {
	return (&unstructured.Unstructured{Object: m}).DeepCopy().Object
}

// pointConversions are the CRDs' conversions, by CRD name, pointed at
// Kueue's webhook server. The CRDs are installed with them, before Kueue
// starts (Kueue's certificate manager checks the CA of each of them before
// Kueue serves); meanwhile only a request in another version than the
// stored one (v1beta1) would call the webhook.
func pointConversions(convs []kueueConversion, baseURL string, caPEM []byte) (map[string]map[string]any, error) {
	out := map[string]map[string]any{}
	for _, c := range convs {
		conv, err := pointConversion(c, baseURL, caPEM)
		if err != nil {
			return nil, err
		}
		out[c.CRD] = conv
	}
	return out, nil
}

// registerKueueWebhooks creates the webhook configurations, pointed at
// Kueue's webhook server.
func (sb *Sandbox) registerKueueWebhooks(ctx context.Context, dyn dynamic.Interface, configs []*unstructured.Unstructured, baseURL string, caPEM []byte) error {
	for _, c := range configs {
		c = c.DeepCopy()
		if err := pointWebhooks(c, baseURL, caPEM); err != nil {
			return err
		}
		if _, err := dyn.Resource(webhookConfigGVRs[c.GetKind()]).Create(ctx, c, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("registering Kueue's %s %s: %w", c.GetKind(), c.GetName(), err)
		}
	}
	return nil
}
