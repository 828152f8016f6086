package kueue

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// Any JSON as the discovery documents of the Kueue API group and of its
// version: decoding them never panics; what is served is what they list,
// and reads the same once encoded and decoded again; the problem named
// is exactly a missing version or resources, and names only those the
// path needs.
func FuzzServedKueueAPI(f *testing.F) {
	group := `{"kind":"APIGroup","apiVersion":"v1","name":"kueue.x-k8s.io","versions":[{"groupVersion":"kueue.x-k8s.io/v1beta2","version":"v1beta2"},` +
		`{"groupVersion":"kueue.x-k8s.io/v1beta1","version":"v1beta1"}],"preferredVersion":{"groupVersion":"kueue.x-k8s.io/v1beta2","version":"v1beta2"}}`
	list := `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"kueue.x-k8s.io/v1beta2","resources":[`
	for i, r := range KueueResources {
		if i > 0 {
			list += ","
		}
		list += `{"name":"` + r + `","singularName":"","namespaced":false,"kind":"X","verbs":["get","list"]}`
	}
	list += `]}`
	f.Add([]byte(group), []byte(list))
	f.Add([]byte(group), []byte(`{"kind":"APIResourceList","groupVersion":"kueue.x-k8s.io/v1beta2","resources":[{"name":"clusterqueues"}]}`))
	f.Add([]byte(`{"kind":"APIGroup","name":"kueue.x-k8s.io","versions":[{"version":"v1beta1"}]}`), []byte(`{}`))
	f.Add([]byte(`{"versions":null}`), []byte(`{"resources":[{"name":5}]}`))
	f.Add([]byte(`[]`), []byte(`null`))
	f.Fuzz(func(t *testing.T, groupDoc, listDoc []byte) {
		g, err := decodeDiscovery[metav1.APIGroup](groupDoc)
		if err != nil {
			return
		}
		l, err := decodeDiscovery[metav1.APIResourceList](listDoc)
		if err != nil {
			l = nil
		}
		served := servedOf(g, l)
		if len(served.Versions) != len(g.Versions) || (l != nil && len(served.Resources) != len(l.APIResources)) {
			t.Fatalf("%s, %s: served %+v", groupDoc, listDoc, served)
		}
		if g2, l2 := roundTrip(t, g), roundTrip(t, l); !reflect.DeepEqual(served, servedOf(g2, l2)) {
			t.Fatalf("%s, %s: served %+v, and %+v once encoded and decoded again", groupDoc, listDoc, served, servedOf(g2, l2))
		}
		problem := served.problem()
		hasVersion := slices.Contains(served.Versions, kernel.KueueVersion)
		hasAll := !slices.ContainsFunc(KueueResources, func(r string) bool { return !slices.Contains(served.Resources, r) })
		if (problem == nil) != (hasVersion && hasAll) {
			t.Fatalf("%s, %s: served %+v, problem %v", groupDoc, listDoc, served, problem)
		}
		if problem != nil {
			if len(problem.Missing) == 0 || slices.ContainsFunc(problem.Missing, func(r string) bool { return !slices.Contains(KueueResources, r) }) {
				t.Fatalf("%s, %s: missing %q", groupDoc, listDoc, problem.Missing)
			}
			_ = problem.Error()
		}
	})
}

// roundTrip is doc encoded and decoded again (nil stays nil).
func roundTrip[T metav1.APIGroup | metav1.APIResourceList](t *testing.T, doc *T) *T {
	t.Helper()
	if doc == nil {
		return nil
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatalf("a decoded discovery document does not encode: %v", err)
	}
	out, err := decodeDiscovery[T](b)
	if err != nil {
		t.Fatalf("%s, an encoded discovery document, does not decode: %v", b, err)
	}
	return out
}
