run data/recipes.ptx --kernel int
