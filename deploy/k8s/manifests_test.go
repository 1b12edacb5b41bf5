package k8s

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/services/planner"
)

// scaledObject is the part of KEDA's keda.sh/v1alpha1 ScaledObject these
// manifests use, field for field as KEDA names them (KEDA's own Go types
// pull in its operator and are not worth the build).
type scaledObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		ScaleTargetRef struct {
			Name string `json:"name"`
		} `json:"scaleTargetRef"`
		MinReplicaCount int `json:"minReplicaCount"`
		MaxReplicaCount int `json:"maxReplicaCount"`
		PollingInterval int `json:"pollingInterval"`
		CooldownPeriod  int `json:"cooldownPeriod"`
		Triggers        []struct {
			Type     string            `json:"type"`
			Metadata map[string]string `json:"metadata"`
		} `json:"triggers"`
	} `json:"spec"`
}

// manifests decodes every document under the directory strictly.
type manifests struct {
	deployments  []*appsv1.Deployment
	statefulSets []*appsv1.StatefulSet
	services     []*corev1.Service
	configMaps   []*corev1.ConfigMap
	secrets      []*corev1.Secret
	hpas         []*autoscalingv2.HorizontalPodAutoscaler
	scaled       []*scaledObject
	namespaces   []*corev1.Namespace
}

func load(t *testing.T) *manifests {
	t.Helper()
	m := &manifests{}
	files, err := filepath.Glob("*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("*/*.yaml")
	files = append(files, more...)
	if len(files) < 8 {
		t.Fatalf("found only %v", files)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range strings.Split(string(data), "\n---\n") {
			var meta metav1.TypeMeta
			if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
				t.Fatalf("%s #%d: %v", f, i, err)
			}
			var into any
			switch meta.Kind {
			case "Deployment":
				d := &appsv1.Deployment{}
				m.deployments, into = append(m.deployments, d), d
			case "StatefulSet":
				s := &appsv1.StatefulSet{}
				m.statefulSets, into = append(m.statefulSets, s), s
			case "Service":
				s := &corev1.Service{}
				m.services, into = append(m.services, s), s
			case "ConfigMap":
				c := &corev1.ConfigMap{}
				m.configMaps, into = append(m.configMaps, c), c
			case "Secret":
				s := &corev1.Secret{}
				m.secrets, into = append(m.secrets, s), s
			case "HorizontalPodAutoscaler":
				h := &autoscalingv2.HorizontalPodAutoscaler{}
				m.hpas, into = append(m.hpas, h), h
			case "ScaledObject":
				s := &scaledObject{}
				m.scaled, into = append(m.scaled, s), s
			case "Namespace":
				n := &corev1.Namespace{}
				m.namespaces, into = append(m.namespaces, n), n
			default:
				t.Fatalf("%s #%d: kind %q is not one this test knows", f, i, meta.Kind)
			}
			if err := yaml.UnmarshalStrict([]byte(doc), into); err != nil {
				t.Fatalf("%s #%d (%s): %v", f, i, meta.Kind, err)
			}
		}
	}
	return m
}

func TestManifestsDecodeStrictly(t *testing.T) {
	m := load(t)
	if len(m.namespaces) != 1 || len(m.statefulSets) != 1 || len(m.deployments) != 4 || len(m.hpas) != 1 || len(m.scaled) != 1 {
		t.Fatalf("namespaces %d, statefulsets %d, deployments %d, hpas %d, scaledobjects %d", len(m.namespaces), len(m.statefulSets), len(m.deployments), len(m.hpas), len(m.scaled))
	}
}

// TestEveryRoleIsProbedAndSized: every container of every role has a
// readiness and a liveness probe on a port it declares, resource
// requests, a memory limit, a read-only root, and the R3 replica setting;
// selectors select their own pods; every Secret a manifest reads is one
// secrets.example.yaml describes.
func TestEveryRoleIsProbedAndSized(t *testing.T) {
	m := load(t)
	secrets := map[string]map[string]bool{}
	for _, s := range m.secrets {
		secrets[s.Name] = map[string]bool{}
		for k := range s.StringData {
			secrets[s.Name][k] = true
		}
	}
	roles := map[string]bool{}
	for _, d := range m.deployments {
		if d.Namespace != "rote" {
			t.Errorf("%s: namespace %q", d.Name, d.Namespace)
		}
		sel, _ := metav1.LabelSelectorAsMap(d.Spec.Selector)
		for k, v := range sel {
			if d.Spec.Template.Labels[k] != v {
				t.Errorf("%s: selector %s=%s does not select its pods", d.Name, k, v)
			}
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			where := d.Name + "/" + c.Name
			if i := slices.Index(c.Args, "--role"); i < 0 || i+1 >= len(c.Args) {
				t.Errorf("%s: no --role in %v", where, c.Args)
			} else {
				roles[c.Args[i+1]] = true
			}
			ports := map[string]bool{}
			for _, p := range c.Ports {
				if len(p.Name) > 15 {
					t.Errorf("%s: port name %q is over 15 characters", where, p.Name)
				}
				ports[p.Name] = true
			}
			for name, p := range map[string]*corev1.Probe{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
				if p == nil || p.HTTPGet == nil || !ports[p.HTTPGet.Port.StrVal] {
					t.Errorf("%s: no %s probe on a declared port", where, name)
				}
			}
			if c.ReadinessProbe != nil && c.ReadinessProbe.HTTPGet != nil && c.ReadinessProbe.HTTPGet.Path != "/readyz" {
				t.Errorf("%s: readiness on %s", where, c.ReadinessProbe.HTTPGet.Path)
			}
			if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
				t.Errorf("%s: resources %+v", where, c.Resources)
			}
			if sc := c.SecurityContext; sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
				t.Errorf("%s: root filesystem not read-only", where)
			}
			env := map[string]string{}
			for _, e := range c.Env {
				env[e.Name] = e.Value
				if r := e.ValueFrom; r != nil && r.SecretKeyRef != nil && !secrets[r.SecretKeyRef.Name][r.SecretKeyRef.Key] {
					t.Errorf("%s: env %s reads secret %s key %s, which secrets.example.yaml does not describe", where, e.Name, r.SecretKeyRef.Name, r.SecretKeyRef.Key)
				}
			}
			if env["ROTE_NATS_REPLICAS"] != "3" || !strings.HasPrefix(env["ROTE_NATS_URL"], "tls://") || env["ROTE_NATS_CA"] == "" {
				t.Errorf("%s: NATS settings %v", where, env)
			}
			// Each role connects as its own user, with its own password;
			// the planners, which create the streams, as user rote.
			role := c.Args[slices.Index(c.Args, "--role")+1]
			user := role
			if role == "planner" {
				user = "rote"
			}
			if !strings.HasPrefix(env["ROTE_NATS_URL"], "tls://"+user+":$(ROTE_NATS_PASSWORD)@") || secretKey(c, "ROTE_NATS_PASSWORD") != user+"-password" {
				t.Errorf("%s: connects as %s with secret key %s, want user %s", where, env["ROTE_NATS_URL"], secretKey(c, "ROTE_NATS_PASSWORD"), user)
			}
		}
	}
	for _, r := range []string{"planner", "actuator", "perception", "matcher", "distiller"} {
		if !roles[r] {
			t.Errorf("no container runs role %s", r)
		}
	}
}

// TestPerceptionReachesTheActuatorsBrowsers: the actuator shares its
// browsers through a Unix socket under /tmp that admits only its own
// user, so the perception beside it must run as that user and mount the
// same /tmp.
func TestPerceptionReachesTheActuatorsBrowsers(t *testing.T) {
	for _, d := range load(t).deployments {
		spec := d.Spec.Template.Spec
		tmp := map[string]string{} // container -> the volume at /tmp
		for _, c := range spec.Containers {
			for _, v := range c.VolumeMounts {
				if v.MountPath == "/tmp" {
					tmp[c.Name] = v.Name
				}
			}
			if sc := c.SecurityContext; sc != nil && sc.RunAsUser != nil {
				t.Errorf("%s/%s: a user of its own (%d): the relay admits only the actuator's", d.Name, c.Name, *sc.RunAsUser)
			}
		}
		if _, ok := tmp["actuator"]; !ok {
			continue
		}
		if tmp["perception"] != tmp["actuator"] {
			t.Errorf("%s: perception mounts %q at /tmp, the actuator %q", d.Name, tmp["perception"], tmp["actuator"])
		}
		if sc := spec.SecurityContext; sc == nil || sc.RunAsUser == nil {
			t.Errorf("%s: no pod-wide user for the actuator and perception to share", d.Name)
		}
	}
}

// secretKey is the secret key env variable name of c is read from.
func secretKey(c corev1.Container, name string) string {
	for _, e := range c.Env {
		if e.Name == name && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			return e.ValueFrom.SecretKeyRef.Key
		}
	}
	return ""
}

// TestNATSClusterIsReplicated: three nodes on persistent volumes, the
// routes name each of them, and nats-server accepts the configuration
// (TLS files and passwords supplied as the pod supplies them).
func TestNATSClusterIsReplicated(t *testing.T) {
	m := load(t)
	s := m.statefulSets[0]
	if *s.Spec.Replicas != 3 || len(s.Spec.VolumeClaimTemplates) != 1 || s.Spec.ServiceName != "rote-nats-headless" {
		t.Fatalf("statefulset: replicas %d, claims %d, service %q", *s.Spec.Replicas, len(s.Spec.VolumeClaimTemplates), s.Spec.ServiceName)
	}
	conf := m.configMaps[0].Data["nats.conf"]
	dir := t.TempDir()
	writeCertificate(t, dir)
	conf = strings.ReplaceAll(conf, "/etc/nats/tls/", dir+"/")
	conf = strings.ReplaceAll(conf, "/data/jetstream", filepath.Join(dir, "js"))
	conf = strings.ReplaceAll(conf, "/var/run/nats/", dir+"/")
	t.Setenv("POD_NAME", "rote-nats-0")
	t.Setenv("ROTE_NATS_PASSWORD", "p1")
	t.Setenv("SYS_NATS_PASSWORD", "p2")
	t.Setenv("CLIENT_NATS_PASSWORD", "p3")
	for _, role := range bus.Roles() {
		t.Setenv(strings.ToUpper(role)+"_NATS_PASSWORD", "p-"+role)
	}
	opts := &server.Options{}
	if err := opts.ProcessConfigString(conf); err != nil {
		t.Fatalf("nats-server refuses the configuration: %v", err)
	}
	checkUsers(t, opts.Users)
	if !opts.JetStream || opts.Cluster.Name != "rote" || len(opts.Routes) != 3 || opts.SystemAccount != "SYS" || opts.TLSConfig == nil || opts.ServerName != "rote-nats-0" {
		t.Fatalf("options: jetstream %v, cluster %q, %d routes, system account %q, tls %v, name %q",
			opts.JetStream, opts.Cluster.Name, len(opts.Routes), opts.SystemAccount, opts.TLSConfig != nil, opts.ServerName)
	}
	for i, r := range opts.Routes {
		if want := "rote-nats-" + string(rune('0'+i)) + ".rote-nats-headless"; !strings.HasPrefix(r.Host, want) {
			t.Errorf("route %d is %s, want %s...", i, r.Host, want)
		}
	}
}

// checkUsers: the planners' user may not delete or purge a stream or a
// message; each other role's user has exactly the permissions the
// embedded server gives it, and so has the task publishers' user.
func checkUsers(t *testing.T, users []*server.User) {
	t.Helper()
	perms := map[string]*server.Permissions{}
	for _, u := range users {
		perms[u.Username] = u.Permissions
	}
	rote, client := perms["rote"], perms["client"]
	if rote == nil || rote.Publish == nil || client == nil || client.Publish == nil || client.Subscribe == nil {
		t.Fatalf("users rote and client need permissions: %+v", perms)
	}
	for _, s := range []string{"$JS.API.STREAM.DELETE.>", "$JS.API.STREAM.PURGE.>", "$JS.API.STREAM.MSG.DELETE.>"} {
		if !slices.Contains(rote.Publish.Deny, s) {
			t.Errorf("user rote may publish %s", s)
		}
	}
	if want := bus.ClientPermissions(); !sameSet(client.Publish.Allow, want.Publish.Allow) || !sameSet(client.Subscribe.Allow, want.Subscribe.Allow) {
		t.Errorf("user client may publish %v and subscribe %v; bus.ClientPermissions says %v and %v", client.Publish.Allow, client.Subscribe.Allow, want.Publish.Allow, want.Subscribe.Allow)
	}
	for _, role := range []string{"perception", "actuator", "matcher", "distiller"} {
		got, want := perms[role], bus.RolePermissions(role)
		if got == nil || got.Publish == nil || got.Subscribe == nil || got.Publish.Deny != nil || got.Subscribe.Deny != nil {
			t.Errorf("user %s: permissions %+v", role, got)
			continue
		}
		if !sameSet(got.Publish.Allow, want.Publish.Allow) || !sameSet(got.Subscribe.Allow, want.Subscribe.Allow) {
			t.Errorf("user %s may publish %v and subscribe %v; bus.RolePermissions says %v and %v", role, got.Publish.Allow, got.Subscribe.Allow, want.Publish.Allow, want.Subscribe.Allow)
		}
	}
}

// sameSet reports whether a and b hold the same strings.
func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// TestAutoscalersWatchTheActuators: KEDA scales the actuator Deployment on
// the lag of the consumer planners really claim tasks with, on the stream
// tasks really go to; the HPA alternative scales the same Deployment.
func TestAutoscalersWatchTheActuators(t *testing.T) {
	m := load(t)
	so := m.scaled[0]
	if so.APIVersion != "keda.sh/v1alpha1" || so.Spec.ScaleTargetRef.Name != "rote-actuator" || len(so.Spec.Triggers) != 1 {
		t.Fatalf("scaled object %+v", so)
	}
	md := so.Spec.Triggers[0].Metadata
	if so.Spec.Triggers[0].Type != "nats-jetstream" || md["stream"] != bus.StreamTasks || md["consumer"] != planner.TaskConsumer || md["account"] != "ROTE" {
		t.Fatalf("trigger %+v: want stream %s, consumer %s", so.Spec.Triggers[0], bus.StreamTasks, planner.TaskConsumer)
	}
	if h := m.hpas[0]; h.Spec.ScaleTargetRef.Name != "rote-actuator" || h.Spec.ScaleTargetRef.Kind != "Deployment" {
		t.Fatalf("hpa targets %+v", h.Spec.ScaleTargetRef)
	}
}

// writeCertificate writes a self-signed tls.crt, tls.key and ca.crt.
func writeCertificate(t *testing.T, dir string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "rote-nats"}, NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour),
		DNSNames: []string{"rote-nats.rote.svc.cluster.local"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	for name, data := range map[string][]byte{"tls.crt": cert, "ca.crt": cert, "tls.key": pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
