package sandbox

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

// JobSet's webhook configurations are taken from its release as it ships
// them (bin/jobset-crds/webhook: the manifests controller-gen writes, and
// the kustomize patches that give the pod webhooks their objectSelector),
// so that what the API server sends to JobSet, and what it does not (pods
// of no JobSet), is what it is in a cluster. Only the address changes: the
// release points them at a Service; the sandbox, with no cluster network,
// at the controller's webhook server on loopback.

// jobSetWebhookDir is the directory, in the JobSet CRD directory, of the
// webhook manifests.
const jobSetWebhookDir = "webhook"

// jobSetNamePrefix is the prefix JobSet's release (kustomize namePrefix)
// gives its objects.
const jobSetNamePrefix = "jobset-"

var webhookConfigGVRs = map[string]schema.GroupVersionResource{
	"MutatingWebhookConfiguration":   {Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations"},
	"ValidatingWebhookConfiguration": {Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"},
}

// kustomization is the part of JobSet's webhook kustomization.yaml the
// sandbox follows.
type kustomization struct {
	Resources []string `json:"resources"`
	Patches   []struct {
		Path   string `json:"path"`
		Target struct {
			Kind string `json:"kind"`
			Name string `json:"name"`
		} `json:"target"`
	} `json:"patches"`
}

// jsonPatchOp is one operation of a JSON patch (RFC 6902) as kustomize
// applies it.
type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value"`
}

// readWebhookConfigs reads the webhook configurations that a release's
// webhook kustomization in wdir lists as resources (of the controller
// named who), leaving out the Service they call in a cluster (loopback
// here); it fails on any other kind, and on a file it cannot read, with
// hint.
func readWebhookConfigs(wdir string, resources []string, who, hint string) ([]*unstructured.Unstructured, error) {
	var configs []*unstructured.Unstructured
	for _, res := range resources {
		if res == "service.yaml" {
			continue
		}
		objs, err := readYAMLObjects(filepath.Join(wdir, res))
		if err != nil {
			return nil, fmt.Errorf("reading %s's webhook manifests: %w; %s", who, err, hint)
		}
		for _, obj := range objs {
			if _, ok := webhookConfigGVRs[obj.GetKind()]; !ok {
				return nil, fmt.Errorf("%s holds a %s, which the sandbox does not install", res, obj.GetKind())
			}
			configs = append(configs, obj)
		}
	}
	return configs, nil
}

// readJobSetWebhooks reads the webhook configurations in dir/webhook, with
// the kustomization's patches applied, named as JobSet's release names
// them.
func readJobSetWebhooks(dir string) ([]*unstructured.Unstructured, error) {
	wdir := filepath.Join(dir, jobSetWebhookDir)
	var k kustomization
	if err := readYAML(filepath.Join(wdir, "kustomization.yaml"), &k); err != nil {
		return nil, fmt.Errorf("reading JobSet's webhook kustomization: %w; %s", err, jobSetCRDsHint)
	}
	configs, err := readWebhookConfigs(wdir, k.Resources, "JobSet", jobSetCRDsHint)
	if err != nil {
		return nil, err
	}
	for _, p := range k.Patches {
		var ops []jsonPatchOp
		file := filepath.Join(wdir, p.Path)
		if err := readYAML(file, &ops); err != nil {
			return nil, fmt.Errorf("reading JobSet's webhook patch: %w", err)
		}
		var target *unstructured.Unstructured
		for _, c := range configs {
			if c.GetKind() == p.Target.Kind && c.GetName() == p.Target.Name {
				target = c
			}
		}
		if target == nil {
			return nil, fmt.Errorf("the JobSet webhook patch %s targets %s %s, which the manifests do not hold", file, p.Target.Kind, p.Target.Name)
		}
		if err := applyWebhookPatch(target, ops); err != nil {
			return nil, fmt.Errorf("applying the JobSet webhook patch %s: %w", file, err)
		}
	}
	if len(configs) == 0 {
		return nil, fmt.Errorf("no webhook configuration in %s: %s", wdir, jobSetCRDsHint)
	}
	for _, c := range configs {
		c.SetName(jobSetNamePrefix + c.GetName())
	}
	return configs, nil
}

// applyWebhookPatch applies the operations JobSet's patches use: replace
// (or add) one whole webhook of a configuration. Anything else is refused,
// so that a release whose patches do more is noticed, not half applied.
func applyWebhookPatch(config *unstructured.Unstructured, ops []jsonPatchOp) error {
	webhooks, _, err := unstructured.NestedSlice(config.Object, "webhooks")
	if err != nil {
		return err
	}
	for _, op := range ops {
		index, ok := strings.CutPrefix(op.Path, "/webhooks/")
		i, err := strconv.Atoi(index)
		if !ok || err != nil || i < 0 || i > len(webhooks) {
			return fmt.Errorf("%s %s: the sandbox applies only operations on one webhook (/webhooks/N, N < %d)", op.Op, op.Path, len(webhooks)+1)
		}
		value, ok := op.Value.(map[string]any)
		if !ok {
			return fmt.Errorf("%s %s: the value is not a webhook", op.Op, op.Path)
		}
		switch {
		case op.Op == "replace" && i < len(webhooks):
			webhooks[i] = value
		case op.Op == "add":
			webhooks = append(webhooks[:i], append([]any{value}, webhooks[i:]...)...)
		default:
			return fmt.Errorf("%s %s: the sandbox applies only replace and add", op.Op, op.Path)
		}
	}
	return unstructured.SetNestedSlice(config.Object, webhooks, "webhooks")
}

// pointWebhooks makes every webhook of config call baseURL (its path kept)
// and trust caPEM, in place of the Service of the release.
func pointWebhooks(config *unstructured.Unstructured, baseURL string, caPEM []byte) error {
	webhooks, _, err := unstructured.NestedSlice(config.Object, "webhooks")
	if err != nil {
		return err
	}
	for _, w := range webhooks {
		m, ok := w.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: a webhook is not an object", config.GetName())
		}
		path, _, _ := unstructured.NestedString(m, "clientConfig", "service", "path")
		if path == "" {
			return fmt.Errorf("%s: webhook %v calls no service path", config.GetName(), m["name"])
		}
		m["clientConfig"] = map[string]any{
			"url":      baseURL + path,
			"caBundle": base64.StdEncoding.EncodeToString(caPEM),
		}
	}
	return unstructured.SetNestedSlice(config.Object, webhooks, "webhooks")
}

// registerJobSetWebhooks creates the webhook configurations, pointed at the
// controller's webhook server.
func (sb *Sandbox) registerJobSetWebhooks(ctx context.Context, configs []*unstructured.Unstructured, baseURL string) error {
	dyn, err := dynamic.NewForConfig(sb.directConfig())
	if err != nil {
		return err
	}
	for _, c := range configs {
		if err := pointWebhooks(c, baseURL, sb.CAPEM); err != nil {
			return err
		}
		if _, err := dyn.Resource(webhookConfigGVRs[c.GetKind()]).Create(ctx, c, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("registering JobSet's %s %s: %w", c.GetKind(), c.GetName(), err)
		}
	}
	return nil
}

func readYAML(file string, into any) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if err := yaml.Unmarshal(b, into); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

// readYAMLObjects reads the Kubernetes objects of a multi-document file.
func readYAMLObjects(file string) ([]*unstructured.Unstructured, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var objs []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	for {
		var obj unstructured.Unstructured
		if err := dec.Decode(&obj.Object); errors.Is(err, io.EOF) {
			return objs, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if obj.Object != nil {
			objs = append(objs, &obj)
		}
	}
}
