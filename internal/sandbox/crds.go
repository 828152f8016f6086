package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// hasCRDs says whether dir has a YAML file (of CRDs, readCRDs checks).
func hasCRDs(dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	return len(files) > 0
}

// readCRDs reads every CRD in dir (each *.yaml file may hold several
// documents; subdirectories are not read), and the release recorded beside
// them in VERSION by `make sandbox-bin` ("" when there is none). hint says
// how to get them.
func readCRDs(dir, hint string) (crds []*unstructured.Unstructured, version string, err error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, "", err
	}
	slices.Sort(files)
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, "", err
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
		for {
			var obj unstructured.Unstructured
			if err := dec.Decode(&obj.Object); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return nil, "", fmt.Errorf("reading %s: %w", file, err)
			}
			if obj.Object == nil {
				continue // an empty document
			}
			if obj.GetKind() != "CustomResourceDefinition" || !strings.HasPrefix(obj.GetAPIVersion(), "apiextensions.k8s.io/") {
				return nil, "", fmt.Errorf("%s holds a %s %s, not a CustomResourceDefinition", file, obj.GetAPIVersion(), obj.GetKind())
			}
			crds = append(crds, &obj)
		}
	}
	if len(crds) == 0 {
		return nil, "", fmt.Errorf("no CRD in %s: %s", dir, hint)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "VERSION")); err == nil {
		version = strings.TrimSpace(string(b))
	}
	return crds, version, nil
}

// directConfig is a client configuration that talks to the API server
// itself, not through the proxy: what the sandbox does on the cluster's
// side is not client traffic, which the proxy counts and tests cut.
func (sb *Sandbox) directConfig() *rest.Config {
	c := sb.RESTConfig()
	c.Host = sb.apiserverURL
	return c
}

// installCRDs creates the CRDs of part (Kueue, JobSet), read from dir, and
// waits until each is Established and every version it serves is in
// discovery, so that its objects can be created as soon as Start returns
// (and its controller finds them when it starts).
func (sb *Sandbox) installCRDs(ctx context.Context, part, dir string, crds []*unstructured.Unstructured) error {
	cfg := sb.directConfig()
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	// Create them all first: the API server establishes them concurrently.
	for _, crd := range crds {
		if _, err := dyn.Resource(crdGVR).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("installing the %s CRD %s from %s: %w", part, crd.GetName(), dir, err)
		}
	}
	pending := make([]*unstructured.Unstructured, len(crds))
	copy(pending, crds)
	if err := waitFor(ctx, sb.apiserver, "the "+part+" CRDs to be established", func(ctx context.Context) error {
		list, err := dyn.Resource(crdGVR).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		established := map[string]bool{}
		for i := range list.Items {
			established[list.Items[i].GetName()] = crdEstablished(&list.Items[i])
		}
		pending = slices.DeleteFunc(pending, func(crd *unstructured.Unstructured) bool { return established[crd.GetName()] })
		if len(pending) > 0 {
			return fmt.Errorf("not established yet: %s", pending[0].GetName())
		}
		return nil
	}); err != nil {
		return err
	}
	if err := waitFor(ctx, sb.apiserver, "the "+part+" resources to be served", func(context.Context) error {
		return servedByDiscovery(disc, crds)
	}); err != nil {
		return err
	}
	return nil
}

// crdEstablished says whether a CRD's Established condition is True.
func crdEstablished(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == "Established" {
			return m["status"] == "True"
		}
	}
	return false
}

// servedByDiscovery checks that discovery lists the plural of each CRD in
// each version it serves.
func servedByDiscovery(disc discovery.DiscoveryInterface, crds []*unstructured.Unstructured) error {
	served := map[string]map[string]bool{} // group/version → plurals
	for _, crd := range crds {
		group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
		plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
		versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
		for _, v := range versions {
			m, _ := v.(map[string]any)
			name, _ := m["name"].(string)
			if isServed, _ := m["served"].(bool); !isServed {
				continue
			}
			gv := group + "/" + name
			if served[gv] == nil {
				list, err := disc.ServerResourcesForGroupVersion(gv)
				if err != nil {
					return err
				}
				served[gv] = map[string]bool{}
				for _, r := range list.APIResources {
					served[gv][r.Name] = true
				}
			}
			if !served[gv][plural] {
				return fmt.Errorf("%s is not served in %s yet", plural, gv)
			}
		}
	}
	return nil
}
