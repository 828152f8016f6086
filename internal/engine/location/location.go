// Package location holds the rules of Google Cloud location names: the
// forms of a region and a zone, the region of a zone, and that a node
// pool's zone is in its cluster's region. Pure functions, checked at plan.
package location

import (
	"fmt"
	"regexp"
	"strings"
)

// The forms of Google Cloud location names: a region is a geography, a
// hyphen and an area ending in digits ("us-central1", "europe-west4",
// "northamerica-northeast2"); a zone is a region, a hyphen and a zone
// letter or short suffix ("us-central1-a", "us-south1-ai1b").
var (
	regionRE = regexp.MustCompile(`^[a-z]+-[a-z]+[0-9]+$`)
	zoneRE   = regexp.MustCompile(`^[a-z]+-[a-z]+[0-9]+-[a-z]([a-z0-9]*[a-z])?$`)
)

// Kind says which location names a value may be.
type Kind int

// The location kinds a value is checked against.
const (
	RegionOrZone Kind = iota
	RegionOnly
	ZoneOnly
)

// Check checks the form of a location name, without calling an API: a name that cannot be a region or a zone is refused at plan time
// instead of failing at apply on the API's 404.
func Check(value string, kind Kind) error {
	isRegion, isZone := regionRE.MatchString(value), zoneRE.MatchString(value)
	switch kind {
	case RegionOnly:
		if isRegion {
			return nil
		}
		if isZone {
			return fmt.Errorf("%q is a zone, not a region: write its region, %q", value, RegionOf(value))
		}
	case ZoneOnly:
		if isZone {
			return nil
		}
		if isRegion {
			return fmt.Errorf("%q is a region, not a zone: write the zone of the reservation, such as %q", value, value+"-a")
		}
	default:
		if isRegion || isZone {
			return nil
		}
	}
	want := map[Kind]string{
		RegionOrZone: `a region such as "us-central1" or a zone such as "us-central1-a"`,
		RegionOnly:   `a region such as "us-central1"`,
		ZoneOnly:     `a zone such as "us-central1-a"`,
	}[kind]
	switch {
	case value == "":
		return fmt.Errorf("the value is empty: write %s", want)
	case strings.TrimSpace(value) != value:
		return fmt.Errorf("%q has spaces around it: remove them", value)
	case strings.ToLower(value) != value:
		return fmt.Errorf("%q has upper-case letters: location names are lower case, such as %q", value, strings.ToLower(value))
	}
	return fmt.Errorf("%q is not a Google Cloud location name: write %s", value, want)
}

// RegionOf returns the region of a location: a zone's region, or the
// location itself.
func RegionOf(location string) string {
	parts := strings.Split(location, "-")
	if len(parts) == 3 && len(parts[2]) > 0 && parts[2][len(parts[2])-1] >= 'a' && parts[2][len(parts[2])-1] <= 'z' {
		return parts[0] + "-" + parts[1]
	}
	return location
}

// IsZone reports whether a location names a zone (us-central1-a).
func IsZone(location string) bool { return RegionOf(location) != location }
