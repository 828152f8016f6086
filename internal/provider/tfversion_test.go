package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The Terraform CLI that terraform-plugin-testing runs: TF_ACC_TERRAFORM_PATH
// when set (scripts/tf-matrix-test.sh sets it to a binary of bin/tf/, built
// by `make tf-matrix`), else `terraform` on PATH. OpenTofu answers
// `version -json` with a "terraform_version" too, so the version checks of
// terraform-plugin-testing (tfversion) cannot tell it from Terraform: the
// first line of `version` does ("Terraform v1.15.8", "OpenTofu v1.12.6").
// The CLI runs of cli_test.go use `terraform` on PATH whatever this says.

// tfCLI is the Terraform CLI of the tests.
type tfCLI struct {
	Path     string // as found: TF_ACC_TERRAFORM_PATH, or the PATH lookup
	Name     string // "Terraform" or "OpenTofu"
	Version  [3]int // major, minor, patch
	Raw      string // the version as printed, such as 1.15.8 or 1.16.0-beta1
	OpenTofu bool
}

func (c tfCLI) String() string {
	return fmt.Sprintf("%s %s (%s)", c.Name, c.Raw, c.Path)
}

// atLeast tells whether the CLI's version is minVersion or later (pre-releases of
// minVersion count as minVersion).
func (c tfCLI) atLeast(minVersion [3]int) bool {
	for i := range c.Version {
		if c.Version[i] != minVersion[i] {
			return c.Version[i] > minVersion[i]
		}
	}
	return true
}

var versionLine = regexp.MustCompile(`^(Terraform|OpenTofu) v(\d+)\.(\d+)\.(\d+)(\S*)`)

// parseTFVersion reads the output of `terraform version` or `tofu version`:
// its first line that says the version (OpenTofu prints warnings about the
// CLI configuration before it, on stdout).
func parseTFVersion(out string) (tfCLI, error) {
	var m []string
	for line := range strings.Lines(out) {
		if m = versionLine.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			break
		}
	}
	if m == nil {
		return tfCLI{}, fmt.Errorf("no version line of Terraform or OpenTofu in %q", out)
	}
	c := tfCLI{Name: m[1], OpenTofu: m[1] == "OpenTofu", Raw: m[2] + "." + m[3] + "." + m[4] + m[5]}
	for i := range 3 {
		c.Version[i], _ = strconv.Atoi(m[2+i])
	}
	return c, nil
}

// parseMinVersion reads "1.14" or "1.14.2".
func parseMinVersion(s string) ([3]int, error) {
	var v [3]int
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return v, fmt.Errorf("version %q: want major.minor[.patch]", s)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return v, fmt.Errorf("version %q: %w", s, err)
		}
		v[i] = n
	}
	return v, nil
}

var testCLI = sync.OnceValues(func() (tfCLI, error) {
	path := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if path == "" {
		p, err := exec.LookPath("terraform")
		if err != nil {
			return tfCLI{}, fmt.Errorf("no TF_ACC_TERRAFORM_PATH and no terraform on PATH: %w", err)
		}
		path = p
	}
	cmd := exec.Command(path, "version")
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1")
	out, err := cmd.Output()
	if err != nil {
		return tfCLI{}, fmt.Errorf("%s version: %w", path, err)
	}
	c, err := parseTFVersion(string(out))
	c.Path = path
	return c, err
})

// testTerraformCLI is the CLI the acceptance tests run; the test fails when
// there is none or it does not say its version.
func testTerraformCLI(t testing.TB) tfCLI {
	t.Helper()
	c, err := testCLI()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// skipUnlessTerraform skips a test, with the reason, unless the CLI is
// Terraform (not OpenTofu) at minVersion ("1.14") or later: for what only such a
// Terraform has, such as list resources and actions (1.14). why says what
// the test needs. The skip says which CLI ran, so that a matrix run shows
// what it did not test.
//
// Every caller needs 1.14 today (list resources, actions); the version
// stays a parameter for what later releases add.
//
//nolint:unparam // see above
func skipUnlessTerraform(t testing.TB, minVersion, why string) {
	t.Helper()
	v, err := parseMinVersion(minVersion)
	if err != nil {
		t.Fatal(err)
	}
	if reason := skipReason(testTerraformCLI(t), v, minVersion, why); reason != "" {
		t.Skip(reason)
	}
}

// skipReason is why a test that needs Terraform minVersion cannot run on c, or "".
func skipReason(c tfCLI, v [3]int, minVersion, why string) string {
	switch {
	case c.OpenTofu:
		return fmt.Sprintf("needs Terraform %s or later (%s), not OpenTofu: the tests run %s", minVersion, why, c)
	case !c.atLeast(v):
		return fmt.Sprintf("needs Terraform %s or later (%s): the tests run %s", minVersion, why, c)
	}
	return ""
}

// skipUnlessIdentity skips a test, with the reason, unless the CLI has
// resource identity: Terraform 1.12 or later, or OpenTofu 1.12 or later.
// why says what the test needs.
func skipUnlessIdentity(t testing.TB, why string) {
	t.Helper()
	if reason := identitySkipReason(testTerraformCLI(t), why); reason != "" {
		t.Skip(reason)
	}
}

// identitySkipReason is why a test of resource identity cannot run on c,
// or "".
func identitySkipReason(c tfCLI, why string) string {
	if c.atLeast([3]int{1, 12, 0}) {
		return ""
	}
	return fmt.Sprintf("needs Terraform or OpenTofu 1.12 or later (%s): the tests run %s", why, c)
}

// The oldest CLIs the provider's tests run on: the provider's functions
// need Terraform 1.8 (README: "Terraform 1.8 or later"; 1.8.5 is the
// test matrix's oldest) or OpenTofu 1.7.
var (
	minTerraform = [3]int{1, 8, 0}
	minOpenTofu  = [3]int{1, 7, 0}
)

// cliTooOld says, in an error that names what is needed, what ran and how
// to run another, whether c is older than the tests need; nil if not.
func cliTooOld(c tfCLI) error {
	minVersion, name := minTerraform, "Terraform 1.8"
	if c.OpenTofu {
		minVersion, name = minOpenTofu, "OpenTofu 1.7"
	}
	if c.atLeast(minVersion) {
		return nil
	}
	return fmt.Errorf("the acceptance tests need %s or later (provider functions); they run %s: "+
		"set TF_ACC_TERRAFORM_PATH to a newer CLI (make tf-matrix builds some in bin/tf/) or put one on PATH", name, c)
}

// parseJSONVersion reads "terraform_version" from the output of `terraform
// version -json` (OpenTofu's too), which is what terraform-plugin-testing
// (terraform-exec) reads: the JSON may follow warnings on stdout.
func parseJSONVersion(out string) (string, error) {
	i := strings.IndexByte(out, '{')
	if i < 0 {
		return "", fmt.Errorf("no JSON in %q", out)
	}
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err := json.NewDecoder(strings.NewReader(out[i:])).Decode(&v); err != nil || v.Version == "" {
		return "", fmt.Errorf("no terraform_version in %q (%v)", out[i:], err)
	}
	return v.Version, nil
}

// runCLI runs the tests' CLI with args, as testCLI does, and returns what
// it printed on stdout and stderr.
func runCLI(c tfCLI, args ...string) (string, error) {
	cmd := exec.Command(c.Path, args...)
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1")
	cmd.Dir = os.TempDir()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// hasQuery says whether the CLI has the query command (list resources,
// Terraform 1.14): `query -help` prints its usage, or the CLI says it has
// no such command.
func hasQuery(c tfCLI) (bool, error) {
	out, err := runCLI(c, "query", "-help")
	switch {
	case err == nil:
		return true, nil
	case strings.Contains(out, `no command named "query"`):
		return false, nil
	}
	return false, fmt.Errorf("%s query -help: %w\n%s", c.Path, err, out)
}

// TestTerraformCLI checks the CLI the acceptance tests run (go test -v
// shows it; scripts/tf-matrix-test.sh runs it first): its version as
// `version -json` says it (what terraform-plugin-testing's version checks
// read) is the one the tests' skips read from `version`; it is recent
// enough for the tests; and what the skips decide agrees with what the CLI
// has. Its subtests then skip, with the reason, what the matrix skips on
// this CLI.
func TestTerraformCLI(t *testing.T) {
	c, err := testCLI()
	if err != nil {
		if os.Getenv("TF_ACC") == "" {
			t.Skipf("no Terraform CLI (the acceptance tests are off): %v", err)
		}
		t.Fatal(err)
	}
	t.Logf("acceptance tests run %s", c)
	out, err := runCLI(c, "version", "-json")
	if err != nil {
		t.Fatalf("%s version -json: %v\n%s", c.Path, err, out)
	}
	if v, err := parseJSONVersion(out); err != nil || v != c.Raw {
		t.Errorf("version -json says %q (%v); version says %s: the version checks and the skips would not agree", v, err, c.Raw)
	}
	if err := cliTooOld(c); err != nil {
		t.Error(err)
	}
	query, err := hasQuery(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("list resources and actions", func(t *testing.T) {
		reason := skipReason(c, [3]int{1, 14, 0}, "1.14", "list resources and actions")
		if query != (reason == "") {
			t.Errorf("%s has the query command: %v, but the skip says %q", c, query, reason)
		}
		if reason != "" {
			t.Skip(reason)
		}
		t.Logf("%s has them", c)
	})
	t.Run("resource identity", func(t *testing.T) {
		reason := identitySkipReason(c, "resource identity")
		if query && reason != "" { // Terraform 1.14 has what 1.12 brought
			t.Errorf("%s has list resources (Terraform 1.14), but the skip says it has no resource identity (1.12): %s", c, reason)
		}
		if reason != "" {
			t.Skip(reason)
		}
		t.Logf("%s has it", c)
	})
}

func TestCLITooOld(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cli  tfCLI
		want string
	}{
		{tfCLI{Name: "Terraform", Raw: "1.8.5", Version: [3]int{1, 8, 5}, Path: "tf"}, ""},
		{tfCLI{Name: "Terraform", Raw: "1.8.0-rc1", Version: [3]int{1, 8, 0}, Path: "tf"}, ""},
		{tfCLI{Name: "Terraform", Raw: "1.11.4", Version: [3]int{1, 11, 4}, Path: "tf"}, ""},
		{tfCLI{Name: "OpenTofu", Raw: "1.7.0", Version: [3]int{1, 7, 0}, Path: "tofu", OpenTofu: true}, ""},
		{tfCLI{Name: "Terraform", Raw: "1.7.5", Version: [3]int{1, 7, 5}, Path: "tf"},
			"the acceptance tests need Terraform 1.8 or later (provider functions); they run Terraform 1.7.5 (tf): set TF_ACC_TERRAFORM_PATH"},
		{tfCLI{Name: "OpenTofu", Raw: "1.6.2", Version: [3]int{1, 6, 2}, Path: "tofu", OpenTofu: true},
			"the acceptance tests need OpenTofu 1.7 or later (provider functions); they run OpenTofu 1.6.2 (tofu)"},
	} {
		err := cliTooOld(tc.cli)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want none", tc.cli, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want an error with %q", tc.cli, err, tc.want)
		}
	}
}

func TestParseJSONVersion(t *testing.T) {
	t.Parallel()
	for out, want := range map[string]string{
		`{"terraform_version": "1.11.4", "platform": "linux_amd64", "provider_selections": {}, "terraform_outdated": false}`: "1.11.4",
		"{\n  \"terraform_version\": \"1.16.0-beta1\"\n}\n":                                                                  "1.16.0-beta1",
		"\nWarning: Unable to open CLI configuration file\n\n{\"terraform_version\": \"1.12.6\"}\n":                          "1.12.6",
	} {
		if got, err := parseJSONVersion(out); err != nil || got != want {
			t.Errorf("parseJSONVersion(%q) = %q, %v; want %q", out, got, err, want)
		}
	}
	for _, out := range []string{"Terraform v1.11.4\n", `{"platform": "linux_amd64"}`, `{"terraform_version": 1}`} {
		if got, err := parseJSONVersion(out); err == nil {
			t.Errorf("parseJSONVersion(%q) = %q, want an error", out, got)
		}
	}
}

func TestSkipUnlessTerraform(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cli  tfCLI
		skip string
	}{
		{tfCLI{Name: "Terraform", Raw: "1.15.8", Version: [3]int{1, 15, 8}, Path: "tf"}, ""},
		{tfCLI{Name: "Terraform", Raw: "1.11.4", Version: [3]int{1, 11, 4}, Path: "tf"}, "needs Terraform 1.14 or later (actions): the tests run Terraform 1.11.4 (tf)"},
		{tfCLI{Name: "OpenTofu", Raw: "1.12.6", Version: [3]int{1, 12, 6}, Path: "tofu", OpenTofu: true}, "needs Terraform 1.14 or later (actions), not OpenTofu: the tests run OpenTofu 1.12.6 (tofu)"},
	} {
		got := skipReason(tc.cli, [3]int{1, 14, 0}, "1.14", "actions")
		if got != tc.skip {
			t.Errorf("%s: skip %q, want %q", tc.cli, got, tc.skip)
		}
	}
}

func TestSkipUnlessIdentity(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cli  tfCLI
		skip string
	}{
		{tfCLI{Name: "Terraform", Raw: "1.15.8", Version: [3]int{1, 15, 8}, Path: "tf"}, ""},
		{tfCLI{Name: "Terraform", Raw: "1.12.0", Version: [3]int{1, 12, 0}, Path: "tf"}, ""},
		{tfCLI{Name: "OpenTofu", Raw: "1.12.6", Version: [3]int{1, 12, 6}, Path: "tofu", OpenTofu: true}, ""},
		{tfCLI{Name: "Terraform", Raw: "1.11.4", Version: [3]int{1, 11, 4}, Path: "tf"}, "needs Terraform or OpenTofu 1.12 or later (resource identity): the tests run Terraform 1.11.4 (tf)"},
		{tfCLI{Name: "OpenTofu", Raw: "1.11.2", Version: [3]int{1, 11, 2}, Path: "tofu", OpenTofu: true}, "needs Terraform or OpenTofu 1.12 or later (resource identity): the tests run OpenTofu 1.11.2 (tofu)"},
		{tfCLI{Name: "Terraform", Raw: "1.8.5", Version: [3]int{1, 8, 5}, Path: "tf"}, "needs Terraform or OpenTofu 1.12 or later (resource identity): the tests run Terraform 1.8.5 (tf)"},
	} {
		if got := identitySkipReason(tc.cli, "resource identity"); got != tc.skip {
			t.Errorf("%s: skip %q, want %q", tc.cli, got, tc.skip)
		}
	}
}

func TestParseTFVersion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		out      string
		name     string
		raw      string
		v        [3]int
		openTofu bool
	}{
		{"Terraform v1.15.8\non linux_amd64\n", "Terraform", "1.15.8", [3]int{1, 15, 8}, false},
		{"Terraform v1.11.4\non linux_amd64\n+ provider registry.terraform.io/dynslice/gke v0.0.1\n", "Terraform", "1.11.4", [3]int{1, 11, 4}, false},
		{"OpenTofu v1.12.6\non linux_amd64\n", "OpenTofu", "1.12.6", [3]int{1, 12, 6}, true},
		{"\nWarning: Unable to open CLI configuration file\n\nThe CLI configuration file at \"/root/.terraformrc\" does not exist.\nOpenTofu v1.12.6\non linux_amd64\n", "OpenTofu", "1.12.6", [3]int{1, 12, 6}, true},
		{"Terraform v1.16.0-beta1\non linux_amd64\n", "Terraform", "1.16.0-beta1", [3]int{1, 16, 0}, false},
	} {
		c, err := parseTFVersion(tc.out)
		if err != nil {
			t.Fatal(err)
		}
		if c.Name != tc.name || c.Raw != tc.raw || c.Version != tc.v || c.OpenTofu != tc.openTofu {
			t.Errorf("parseTFVersion(%q) = %+v", tc.out, c)
		}
	}
	if _, err := parseTFVersion("something else v1.2.3"); err == nil {
		t.Error("parseTFVersion accepted a line that is not a version")
	}
	v14, err := parseMinVersion("1.14")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		v    [3]int
		want bool
	}{
		{[3]int{1, 13, 9}, false}, {[3]int{1, 14, 0}, true}, {[3]int{1, 15, 8}, true}, {[3]int{0, 15, 0}, false}, {[3]int{2, 0, 0}, true},
	} {
		if got := (tfCLI{Version: tc.v}).atLeast(v14); got != tc.want {
			t.Errorf("%v at least 1.14 = %v", tc.v, got)
		}
	}
	if _, err := parseMinVersion("1"); err == nil {
		t.Error("parseMinVersion accepted 1")
	}
}
