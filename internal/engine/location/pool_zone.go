package location

import "fmt"

// The rule of a node pool's zone: it is in its cluster's region (GKE
// places a pool's nodes only in zones of the cluster's region, and the
// pool's reservation is looked up in that zone). Checked at plan, from
// the names alone, before any request; a pool whose zone breaks it used to
// fail at apply with "reservation … not found".

// ZoneOutsideRegionError is a pool's zone outside its cluster's region.
type ZoneOutsideRegionError struct {
	// Zone is the pool's zone; Location the cluster's location.
	Zone, Location string
}

func (e *ZoneOutsideRegionError) Error() string {
	region := RegionOf(e.Location)
	return fmt.Sprintf("zone %q is in region %q, but the cluster's location is %q (region %q): a node pool's zone must be in its "+
		"cluster's region, where GKE places its nodes and where its reservation is read. Write the zone of the reservation in %s, "+
		"such as %q, or set location (or the provider's) to the cluster's.", e.Zone, RegionOf(e.Zone), e.Location, region, region, region+"-a")
}

// CheckPoolZone is the ZoneOutsideRegionError of a pool in zone of the
// cluster at location, or nil; nil too when either is not a location
// name (Check reports those).
func CheckPoolZone(location, zone string) error {
	named := regionRE.MatchString(location) || zoneRE.MatchString(location)
	if named && zoneRE.MatchString(zone) && RegionOf(zone) != RegionOf(location) {
		return &ZoneOutsideRegionError{Zone: zone, Location: location}
	}
	return nil
}
