package store

import (
	"strings"

	"kalah/internal/identity"
)

// migrateSkeletons gives every name the skeleton identity.Skeleton gives
// it now that punctuation at a name's ends is not read ("alice." is
// alice): the names table held skeletons with it ("alice-"), so a name
// could be claimed beside one a reader takes it for. A name whose new
// skeleton another already has (alice and alice., both registered before)
// keeps its old one: both go on being found (Identity looks under both),
// and the new skeleton, taken, keeps any third look-alike out.
func migrateSkeletons(tx *Tx) error {
	rows, err := tx.Query(`SELECT skeleton, name FROM names WHERE skeleton LIKE '-%' OR skeleton LIKE '%-' ORDER BY name`)
	if err != nil {
		return err
	}
	type row struct{ skeleton, name string }
	var old []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.skeleton, &r.name); err != nil {
			rows.Close()
			return err
		}
		old = append(old, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, r := range old {
		if _, err := tx.Exec(`UPDATE names SET skeleton=? WHERE skeleton=? AND NOT EXISTS (SELECT 1 FROM names WHERE skeleton=?)`,
			identity.Skeleton(r.name), r.skeleton, identity.Skeleton(r.name)); err != nil {
			return err
		}
	}
	return nil
}

// untrimmedSkeleton is name's skeleton as it was before punctuation at a
// name's ends was dropped from it: the key of a name migrateSkeletons
// left under its old skeleton.
func untrimmedSkeleton(name string) string {
	lead := len(name) - len(strings.TrimLeft(name, "-_."))
	trail := len(name) - len(strings.TrimRight(name, "-_."))
	if lead == len(name) {
		return strings.Repeat("-", lead)
	}
	return strings.Repeat("-", lead) + identity.Skeleton(name) + strings.Repeat("-", trail)
}
