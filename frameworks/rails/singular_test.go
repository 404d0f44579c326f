package rails

import "testing"

// The column add_foreign_key infers is singular(table)_id, as ActiveSupport
// singularizes with Rails' default inflections (these are its answers).
func TestSingular(t *testing.T) {
	for plural, want := range map[string]string{
		"users":           "user",
		"categories":      "category",
		"addresses":       "address",
		"batches":         "batch",
		"boxes":           "box",
		"children":        "child",
		"grandchildren":   "grandchild",
		"people":          "person",
		"salespeople":     "salesperson",
		"women":           "woman",
		"statuses":        "status",
		"order_statuses":  "order_status",
		"aliases":         "alias",
		"wolves":          "wolf",
		"knives":          "knife",
		"product_drives":  "product_drife", // an app inflection would say drive
		"objectives":      "objective",
		"archives":        "archive",
		"movies":          "movie",
		"series":          "series",
		"news":            "news",
		"sheep":           "sheep",
		"user_species":    "user_specy",
		"media":           "medium",
		"analyses":        "analysis",
		"diagnoses":       "diagnosis",
		"heroes":          "hero",
		"shoes":           "shoe",
		"buses":           "bus",
		"mice":            "mouse",
		"indices":         "index",
		"matrices":        "matrix",
		"quizzes":         "quiz",
		"databases":       "database",
		"oxen":            "ox",
		"axes":            "axis",
		"crises":          "crisis",
		"octopi":          "octopus",
		"zombies":         "zombie",
		"moves":           "move",
		"business":        "business",
		"sexes":           "sex",
		"account_entries": "account_entry",
	} {
		if got := singular(plural); got != want {
			t.Errorf("singular(%q) = %q, want %q", plural, got, want)
		}
	}
}
