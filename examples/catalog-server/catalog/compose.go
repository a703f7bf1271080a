package catalog

import "slices"

// WithPackages returns a new catalog with c's projects, problems and
// diagnostics, in which each package whose path ("project/package") is a key
// of served is that version instead of c's: an earlier load's, still served
// while the models of the version c read are opened. Packages of c that served
// does not name stay as they are; paths of served that c does not have are
// ignored. The new catalog has entries of its own (Entry.Columns empty, for
// the caller to fill before it publishes the catalog); c is not changed.
//
// A package of served keeps its Project: the project of the read it came from,
// with the same Name, but its Description and Problems as they were then. The
// new catalog's own are in its Projects and in its entries (Entry.Project, the
// Description of a project's entry): read a project's fields there, not
// through Package.Project. (Pointing a kept package at the new project would
// mean copying it, and its models, sources and queries with their pointers
// back to it, which the engines opened for it hold.)
func (c *Catalog) WithPackages(served map[string]*Package) *Catalog {
	n := &Catalog{Dir: c.Dir, Diagnostics: c.Diagnostics, Problems: c.Problems, skipped: c.skipped}
	for _, p := range c.Projects {
		np := p
		for i, pkg := range p.Packages {
			v := served[p.Name+"/"+pkg.Name]
			if v == nil || v == pkg {
				continue
			}
			if np == p {
				cp := *p
				cp.Packages = slices.Clone(p.Packages)
				np = &cp
			}
			np.Packages[i] = v
		}
		n.Projects = append(n.Projects, np)
	}
	n.index()
	return n
}
