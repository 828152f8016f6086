package dws

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
)

// fixture is a controller over fake clients, with a clock the test moves.
type fixture struct {
	t     *testing.T
	c     *Controller
	pools *Pools
	kube  *kubefake.Clientset
	dyn   *dynamicfake.FakeDynamicClient
	now   time.Time
}

const ns = "team"

var flexPool = Pool{Name: "flex", MachineType: "tpu7x-standard-4t", Accelerator: "tpu7x", Topology: "2x2x2",
	ChipsPerNode: 4, Zone: "us-central1-a", FlexStart: true}

func newFixture(t *testing.T, objs ...runtime.Object) *fixture {
	t.Helper()
	f := &fixture{t: t, pools: NewPools(10 * time.Second), now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	f.pools.Set(flexPool)
	f.kube = kubefake.NewClientset(objs...)
	f.dyn = dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{GVR: "ProvisioningRequestList"})
	f.c = New(f.pools, f.kube, f.dyn)
	f.c.now = func() time.Time { return f.now }
	return f
}

// template is a Kueue PodTemplate ("ppt-...") whose pods select sel.
func template(name string, sel map[string]string) *corev1.PodTemplate {
	return &corev1.PodTemplate{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Template:   corev1.PodTemplateSpec{Spec: corev1.PodSpec{NodeSelector: sel}},
	}
}

// create creates a ProvisioningRequest as Kueue writes one.
func (f *fixture) create(name, class, tmpl string, count int64, params map[string]any) {
	f.t.Helper()
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "autoscaling.x-k8s.io/v1", "kind": "ProvisioningRequest",
		"metadata": map[string]any{"namespace": ns, "name": name, "uid": "uid-" + name},
		"spec": map[string]any{
			"provisioningClassName": class,
			"parameters":            params,
			"podSets":               []any{map[string]any{"podTemplateRef": map[string]any{"name": tmpl}, "count": count}},
		},
	}}
	if _, err := f.dyn.Resource(GVR).Namespace(ns).Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

// sync runs one Sync at the fixture's time, which must succeed.
func (f *fixture) sync() {
	f.t.Helper()
	if err := f.c.Sync(context.Background()); err != nil {
		f.t.Fatalf("Sync: %v", err)
	}
}

// condition is the request's condition t ("" when unset).
func (f *fixture) condition(name, t string) (status metav1.ConditionStatus, reason string) {
	f.t.Helper()
	obj, err := f.dyn.Resource(GVR).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	req, err := readRequest(obj)
	if err != nil {
		f.t.Fatal(err)
	}
	c := apimeta.FindStatusCondition(req.conditions, t)
	if c == nil {
		return "", ""
	}
	return c.Status, c.Reason
}

func (f *fixture) wantCondition(name, t string, status metav1.ConditionStatus, reason string) {
	f.t.Helper()
	if s, r := f.condition(name, t); s != status || r != reason {
		f.t.Errorf("%s %s = %q (%s), want %q (%s)", name, t, s, r, status, reason)
	}
}

func (f *fixture) nodes() []corev1.Node {
	f.t.Helper()
	list, err := f.kube.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return list.Items
}
