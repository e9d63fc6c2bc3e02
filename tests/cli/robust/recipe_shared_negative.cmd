run data/recipes.ptx --kernel neg
