run data/recipes.ptx --kernel shared
