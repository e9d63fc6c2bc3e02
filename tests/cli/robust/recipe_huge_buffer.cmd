run data/recipes.ptx --kernel big
