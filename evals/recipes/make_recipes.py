"""Write the recipes bucket: 60 short recipe documents and their labels.

Deterministic (seeded, stdlib only). Run from the repository root:

    python evals/recipes/make_recipes.py

Writes evals/recipes/docs/<slug>.md (one recipe each) and evals/recipes/annotations.jsonl, one row per document in
the format `ragent ingest --annotations` reads: {"doc_id", "kind", "row", "raw"}. The doc_id is the file's path
within the folder that is ingested (evals/recipes/docs), i.e. the file name, e.g. "thai-green-curry-chicken.md".
The row holds exactly: cuisine (str), prep_minutes (int), vegetarian (bool), calories (int, per serving),
author (str). The raw object keeps the strings the document itself uses for time, calories and diet.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

SEED = 20261128
HERE = Path(__file__).resolve().parent
DOCS = HERE / "docs"
ANNOTATIONS = HERE / "annotations.jsonl"

# author -> weight (one author clearly writes the most)
AUTHORS = [
    ("Maria Rossi", 14),
    ("Priya Sharma", 9),
    ("Kenji Watanabe", 8),
    ("Sophie Laurent", 8),
    ("James Carter", 7),
    ("Diego Ramirez", 6),
    ("Anna Kowalski", 5),
    ("Tom Baker", 3),
]

# cuisine -> list of (title, vegetarian, base prep minutes, base calories, ingredients, method steps)
DISHES: dict[str, list[tuple[str, bool, int, int, list[str], list[str]]]] = {
    "Thai": [
        (
            "Green Curry with Chicken",
            False,
            40,
            520,
            [
                "2 tbsp green curry paste",
                "400 ml coconut milk",
                "500 g chicken thigh, sliced",
                "1 aubergine, diced",
                "a handful of Thai basil",
                "1 tbsp fish sauce",
                "1 tsp palm sugar",
            ],
            [
                "Fry the curry paste in a splash of coconut cream until fragrant.",
                "Add the chicken and stir until sealed, then pour in the rest of the coconut milk.",
                "Simmer with the aubergine until tender, season with fish sauce and sugar, and finish with basil.",
            ],
        ),
        (
            "Pad Thai with Prawns",
            False,
            25,
            610,
            [
                "200 g flat rice noodles",
                "250 g raw prawns",
                "2 eggs",
                "3 tbsp tamarind paste",
                "2 tbsp fish sauce",
                "bean sprouts",
                "crushed peanuts",
                "lime wedges",
            ],
            [
                "Soak the noodles in warm water until pliable.",
                "Stir-fry the prawns, push them aside and scramble the eggs in the wok.",
                "Add noodles, tamarind and fish sauce, toss with sprouts and serve with peanuts and lime.",
            ],
        ),
        (
            "Tom Yum Soup",
            False,
            30,
            210,
            [
                "1 litre chicken stock",
                "2 stalks lemongrass",
                "4 kaffir lime leaves",
                "3 slices galangal",
                "200 g prawns",
                "150 g mushrooms",
                "2 tbsp lime juice",
                "chillies to taste",
            ],
            [
                "Bruise the lemongrass and simmer it with the lime leaves and galangal in the stock.",
                "Add mushrooms and prawns and cook for three minutes.",
                "Take off the heat, add lime juice and fish sauce, and taste for sour, salty and hot.",
            ],
        ),
        (
            "Massaman Beef Curry",
            False,
            150,
            780,
            [
                "800 g braising beef",
                "3 tbsp massaman paste",
                "400 ml coconut milk",
                "3 potatoes",
                "1 onion",
                "50 g roasted peanuts",
                "1 cinnamon stick",
                "2 tbsp tamarind",
            ],
            [
                "Brown the beef in batches and set aside.",
                "Fry the paste, add coconut milk, cinnamon and the beef, and braise gently for two hours.",
                "Add potatoes, onion and peanuts for the last thirty minutes and season with tamarind.",
            ],
        ),
        (
            "Vegetable Pad See Ew",
            True,
            20,
            480,
            [
                "300 g wide rice noodles",
                "1 head Chinese broccoli",
                "2 eggs",
                "2 tbsp dark soy sauce",
                "1 tbsp light soy sauce",
                "1 tsp sugar",
                "2 cloves garlic",
            ],
            [
                "Fry the garlic and broccoli stems in a very hot wok.",
                "Add the noodles and sauces and let them char a little before tossing.",
                "Push aside, scramble the eggs, fold everything together and serve.",
            ],
        ),
        (
            "Thai Red Curry with Tofu",
            True,
            35,
            450,
            [
                "400 g firm tofu",
                "2 tbsp red curry paste (vegetarian)",
                "400 ml coconut milk",
                "1 red pepper",
                "100 g green beans",
                "1 tbsp soy sauce",
                "Thai basil",
            ],
            [
                "Press and cube the tofu, then fry until golden.",
                "Fry the paste, add coconut milk and vegetables and simmer for ten minutes.",
                "Return the tofu, season with soy sauce and scatter with basil.",
            ],
        ),
        (
            "Mango Sticky Rice",
            True,
            50,
            390,
            [
                "250 g glutinous rice",
                "200 ml coconut milk",
                "60 g sugar",
                "pinch of salt",
                "2 ripe mangoes",
                "toasted sesame seeds",
            ],
            [
                "Soak the rice for at least thirty minutes, then steam it until tender.",
                "Warm the coconut milk with sugar and salt and stir most of it through the hot rice.",
                "Serve with sliced mango, the remaining sauce and sesame seeds.",
            ],
        ),
        (
            "Larb Gai",
            False,
            20,
            290,
            [
                "500 g minced chicken",
                "2 shallots",
                "1 tbsp toasted rice powder",
                "3 tbsp lime juice",
                "2 tbsp fish sauce",
                "mint and coriander",
                "lettuce leaves",
            ],
            [
                "Cook the chicken in a dry pan with a splash of water until just done.",
                "Off the heat, stir in shallots, lime, fish sauce and rice powder.",
                "Fold in the herbs and serve in lettuce cups.",
            ],
        ),
        (
            "Som Tam Papaya Salad",
            True,
            15,
            160,
            [
                "1 green papaya, shredded",
                "10 cherry tomatoes",
                "2 cloves garlic",
                "2 bird's eye chillies",
                "2 tbsp lime juice",
                "1 tbsp soy sauce",
                "1 tbsp palm sugar",
                "roasted peanuts",
            ],
            [
                "Pound the garlic and chillies in a mortar.",
                "Add the sugar, lime and soy sauce, then the tomatoes and bruise lightly.",
                "Toss with the papaya and top with peanuts.",
            ],
        ),
        (
            "Thai Basil Fried Rice",
            True,
            15,
            430,
            [
                "3 cups cooked jasmine rice",
                "2 eggs",
                "1 onion",
                "2 cloves garlic",
                "2 tbsp soy sauce",
                "1 tbsp vegetarian oyster sauce",
                "a large handful of holy basil",
            ],
            [
                "Fry the garlic and onion until soft.",
                "Add the rice and sauces and stir-fry until hot and slightly crisp.",
                "Push aside, fry the eggs, and fold through with the basil.",
            ],
        ),
    ],
    "French": [
        (
            "Coq au Vin",
            False,
            140,
            690,
            [
                "1 chicken, jointed",
                "750 ml red Burgundy",
                "150 g lardons",
                "200 g button mushrooms",
                "12 pearl onions",
                "2 tbsp flour",
                "thyme and bay",
            ],
            [
                "Marinate the chicken in the wine overnight if you can.",
                "Brown the lardons and chicken, dust with flour, then add the wine and herbs.",
                "Braise for an hour and a half, adding the onions and mushrooms towards the end.",
            ],
        ),
        (
            "Beef Bourguignon",
            False,
            180,
            760,
            [
                "1 kg beef chuck",
                "750 ml red wine",
                "150 g bacon",
                "2 carrots",
                "1 onion",
                "250 g mushrooms",
                "2 tbsp tomato paste",
                "beef stock",
            ],
            [
                "Sear the beef in batches and set aside.",
                "Soften the bacon, onion and carrot, stir in the tomato paste and deglaze with the wine.",
                "Return the beef, cover with stock and cook slowly for about three hours.",
            ],
        ),
        (
            "Ratatouille",
            True,
            70,
            240,
            [
                "2 courgettes",
                "1 aubergine",
                "2 red peppers",
                "4 tomatoes",
                "1 onion",
                "3 cloves garlic",
                "olive oil",
                "herbes de Provence",
            ],
            [
                "Cook each vegetable separately in olive oil until lightly coloured.",
                "Combine with the tomatoes, garlic and herbs.",
                "Simmer gently for forty minutes, until thick and glossy.",
            ],
        ),
        (
            "Quiche Lorraine",
            False,
            75,
            560,
            [
                "1 sheet shortcrust pastry",
                "200 g smoked bacon",
                "4 eggs",
                "300 ml double cream",
                "100 g Gruyère",
                "nutmeg",
            ],
            [
                "Blind-bake the pastry case.",
                "Fry the bacon, scatter it over the base with the cheese.",
                "Whisk eggs, cream and nutmeg, pour in, and bake at 180 C for about 35 minutes.",
            ],
        ),
        (
            "French Onion Soup",
            False,
            80,
            420,
            [
                "1 kg onions",
                "50 g butter",
                "1.5 litres beef stock",
                "150 ml dry white wine",
                "baguette slices",
                "150 g Gruyère",
            ],
            [
                "Cook the onions slowly in butter for about forty-five minutes, until deep brown.",
                "Add the wine and stock and simmer for twenty minutes.",
                "Ladle into bowls, top with toasted bread and cheese, and grill until bubbling.",
            ],
        ),
        (
            "Crêpes Suzette",
            True,
            30,
            370,
            ["125 g flour", "2 eggs", "300 ml milk", "2 oranges", "60 g butter", "50 g sugar", "3 tbsp Grand Marnier"],
            [
                "Whisk a smooth batter and rest it for ten minutes.",
                "Cook thin crêpes in a buttered pan.",
                "Make an orange butter sauce, warm the folded crêpes in it and flambé with the liqueur.",
            ],
        ),
        (
            "Salade Niçoise",
            False,
            25,
            450,
            [
                "200 g tuna",
                "4 eggs",
                "200 g green beans",
                "300 g new potatoes",
                "black olives",
                "anchovies",
                "cherry tomatoes",
                "Dijon vinaigrette",
            ],
            [
                "Boil the potatoes, beans and eggs.",
                "Arrange with the tomatoes, olives, tuna and anchovies.",
                "Dress with the vinaigrette just before serving.",
            ],
        ),
        (
            "Gratin Dauphinois",
            True,
            85,
            510,
            ["1 kg waxy potatoes", "300 ml double cream", "300 ml milk", "2 cloves garlic", "nutmeg", "butter"],
            [
                "Slice the potatoes thinly.",
                "Warm the cream and milk with garlic and nutmeg and pour over the layered potatoes.",
                "Bake at 160 C for about an hour, until tender and golden.",
            ],
        ),
        (
            "Leek and Gruyère Tart",
            True,
            55,
            530,
            ["1 sheet puff pastry", "3 leeks", "30 g butter", "2 eggs", "150 ml crème fraîche", "100 g Gruyère"],
            [
                "Sweat the leeks in butter until soft.",
                "Spread over the pastry, pour over the eggs beaten with crème fraîche, and add the cheese.",
                "Bake until set and golden.",
            ],
        ),
    ],
    "Italian": [
        (
            "Spaghetti Carbonara",
            False,
            20,
            650,
            ["400 g spaghetti", "150 g guanciale", "4 egg yolks", "60 g Pecorino Romano", "black pepper"],
            [
                "Cook the spaghetti in well-salted water.",
                "Crisp the guanciale in a pan.",
                "Off the heat, toss the pasta with the fat, the yolks beaten with cheese and a splash of pasta water.",
            ],
        ),
        (
            "Margherita Pizza",
            True,
            100,
            720,
            [
                "500 g 00 flour",
                "7 g dried yeast",
                "325 ml warm water",
                "400 g passata",
                "250 g mozzarella",
                "fresh basil",
                "olive oil",
            ],
            [
                "Make the dough and let it rise for at least an hour.",
                "Stretch thin, spread with passata and top with torn mozzarella.",
                "Bake in the hottest oven you have and finish with basil and oil.",
            ],
        ),
        (
            "Mushroom Risotto",
            True,
            45,
            540,
            [
                "320 g arborio rice",
                "300 g mixed mushrooms",
                "1 onion",
                "150 ml white wine",
                "1.2 litres vegetable stock",
                "50 g Parmesan (vegetarian)",
                "butter",
            ],
            [
                "Fry the mushrooms and set aside.",
                "Soften the onion, toast the rice, add the wine, then the stock a ladle at a time.",
                "Stir in mushrooms, butter and cheese and rest for two minutes.",
            ],
        ),
        (
            "Lasagne al Forno",
            False,
            130,
            820,
            [
                "12 lasagne sheets",
                "500 g beef mince",
                "250 g pork mince",
                "700 g passata",
                "1 litre béchamel",
                "100 g Parmesan",
            ],
            [
                "Make a ragù and simmer it for an hour.",
                "Layer pasta, ragù and béchamel, finishing with béchamel and cheese.",
                "Bake for forty-five minutes and rest before cutting.",
            ],
        ),
        (
            "Pesto Genovese Pasta",
            True,
            20,
            600,
            [
                "400 g trofie",
                "2 bunches basil",
                "50 g pine nuts",
                "1 clove garlic",
                "60 g Parmesan",
                "olive oil",
                "2 potatoes",
                "100 g green beans",
            ],
            [
                "Pound the basil, garlic and pine nuts, then work in cheese and oil.",
                "Boil the potatoes and beans with the pasta.",
                "Toss everything with the pesto and a little cooking water.",
            ],
        ),
        (
            "Osso Buco",
            False,
            165,
            710,
            [
                "4 veal shanks",
                "1 onion",
                "1 carrot",
                "1 celery stick",
                "200 ml white wine",
                "400 g tomatoes",
                "gremolata",
            ],
            [
                "Dust and brown the shanks.",
                "Soften the vegetables, add wine and tomatoes and return the veal.",
                "Braise for two hours and serve with gremolata.",
            ],
        ),
        (
            "Caprese Salad",
            True,
            10,
            310,
            ["3 ripe tomatoes", "250 g buffalo mozzarella", "fresh basil", "extra virgin olive oil", "flaky salt"],
            [
                "Slice the tomatoes and mozzarella.",
                "Alternate on a plate with basil leaves.",
                "Season and drizzle generously with oil.",
            ],
        ),
        (
            "Tiramisu",
            True,
            35,
            480,
            ["250 g mascarpone", "3 eggs", "75 g sugar", "200 ml strong coffee", "200 g savoiardi", "cocoa powder"],
            [
                "Whisk the yolks with sugar, fold in mascarpone and then the whipped whites.",
                "Dip the biscuits in coffee and layer with the cream.",
                "Chill for at least four hours and dust with cocoa.",
            ],
        ),
        (
            "Chicken Cacciatore",
            False,
            70,
            470,
            [
                "8 chicken thighs",
                "1 onion",
                "2 peppers",
                "200 g mushrooms",
                "400 g tomatoes",
                "100 ml red wine",
                "olives",
                "rosemary",
            ],
            [
                "Brown the chicken and set aside.",
                "Soften the vegetables, add wine and tomatoes.",
                "Return the chicken and simmer for forty minutes.",
            ],
        ),
        (
            "Melanzane alla Parmigiana",
            True,
            90,
            560,
            ["3 aubergines", "700 g passata", "250 g mozzarella", "80 g Parmesan", "basil", "olive oil"],
            [
                "Slice and fry or grill the aubergines.",
                "Layer with sauce, mozzarella and Parmesan.",
                "Bake for forty minutes and rest before serving.",
            ],
        ),
        (
            "Minestrone",
            True,
            50,
            260,
            [
                "1 onion",
                "2 carrots",
                "2 celery sticks",
                "1 courgette",
                "400 g cannellini beans",
                "400 g chopped tomatoes",
                "100 g small pasta",
                "vegetable stock",
            ],
            [
                "Soften the onion, carrot and celery in olive oil.",
                "Add the tomatoes, stock and courgette and simmer for twenty minutes.",
                "Add beans and pasta and cook until the pasta is done.",
            ],
        ),
        (
            "Saltimbocca alla Romana",
            False,
            25,
            430,
            ["4 veal escalopes", "4 slices prosciutto", "8 sage leaves", "butter", "100 ml white wine"],
            [
                "Top each escalope with sage and prosciutto and secure with a toothpick.",
                "Fry in butter, ham side first.",
                "Deglaze with wine and spoon the sauce over.",
            ],
        ),
    ],
    "Mexican": [
        (
            "Chicken Enchiladas",
            False,
            60,
            640,
            [
                "8 corn tortillas",
                "500 g cooked chicken",
                "500 ml red enchilada sauce",
                "150 g cheddar",
                "1 onion",
                "sour cream",
            ],
            [
                "Warm the tortillas and fill with chicken and onion.",
                "Roll, lay in a dish and cover with sauce and cheese.",
                "Bake for twenty-five minutes.",
            ],
        ),
        (
            "Black Bean Tacos",
            True,
            20,
            420,
            [
                "8 small tortillas",
                "2 tins black beans",
                "1 tsp cumin",
                "1 avocado",
                "pickled red onion",
                "feta or cotija",
                "lime",
            ],
            [
                "Warm the beans with cumin and crush a few.",
                "Char the tortillas in a dry pan.",
                "Fill with beans, avocado, onion and cheese, and squeeze over lime.",
            ],
        ),
        (
            "Classic Guacamole",
            True,
            10,
            230,
            ["3 ripe avocados", "1 lime", "1 small onion", "1 tomato", "1 jalapeño", "coriander", "salt"],
            [
                "Mash the avocados roughly.",
                "Stir in the finely chopped onion, tomato, chilli and coriander.",
                "Season with lime and salt and serve at once.",
            ],
        ),
        (
            "Pork Carnitas",
            False,
            200,
            710,
            [
                "1.5 kg pork shoulder",
                "1 orange",
                "1 onion",
                "4 cloves garlic",
                "2 tsp oregano",
                "1 tsp cumin",
                "tortillas to serve",
            ],
            [
                "Cut the pork into chunks and season with salt, cumin and oregano.",
                "Braise slowly with orange, onion and garlic for three hours.",
                "Shred and crisp in a hot pan before serving.",
            ],
        ),
        (
            "Chiles Rellenos",
            True,
            75,
            520,
            ["6 poblano peppers", "250 g Oaxaca cheese", "4 eggs", "flour", "tomato sauce", "oil for frying"],
            [
                "Blister and peel the peppers and slit them open.",
                "Stuff with cheese, dust with flour and dip in beaten egg whites.",
                "Fry until golden and serve with tomato sauce.",
            ],
        ),
        (
            "Pozole Rojo",
            False,
            160,
            560,
            [
                "1 kg pork shoulder",
                "800 g hominy",
                "4 dried guajillo chillies",
                "1 onion",
                "garlic",
                "oregano",
                "radish and cabbage to serve",
            ],
            [
                "Simmer the pork with onion and garlic for two hours.",
                "Blend the soaked chillies and add them with the hominy.",
                "Cook thirty minutes more and serve with the garnishes.",
            ],
        ),
        (
            "Baja Fish Tacos",
            False,
            30,
            510,
            [
                "500 g white fish",
                "150 g flour",
                "200 ml beer",
                "8 tortillas",
                "shredded cabbage",
                "chipotle mayo",
                "lime",
            ],
            [
                "Make a batter of flour and beer.",
                "Dip and fry the fish until crisp.",
                "Serve in tortillas with cabbage, chipotle mayo and lime.",
            ],
        ),
        (
            "Vegetable Quesadillas",
            True,
            15,
            460,
            ["4 large flour tortillas", "1 pepper", "1 courgette", "100 g sweetcorn", "150 g Monterey Jack", "salsa"],
            [
                "Sauté the vegetables until soft.",
                "Spread over half of each tortilla, add cheese and fold.",
                "Toast on both sides until the cheese melts.",
            ],
        ),
        (
            "Chicken Tinga Tostadas",
            False,
            45,
            490,
            [
                "500 g chicken breast",
                "2 chipotles in adobo",
                "400 g tomatoes",
                "1 onion",
                "8 tostadas",
                "refried beans",
                "crema",
            ],
            [
                "Poach and shred the chicken.",
                "Cook the onion, blend tomatoes with chipotle and simmer with the chicken.",
                "Spread tostadas with beans and top with the tinga and crema.",
            ],
        ),
        (
            "Mexican Street Corn",
            True,
            25,
            280,
            ["4 corn cobs", "3 tbsp mayonnaise", "60 g cotija", "1 tsp chilli powder", "lime", "coriander"],
            [
                "Grill the corn until charred.",
                "Brush with mayonnaise and roll in cheese.",
                "Sprinkle with chilli and coriander and serve with lime.",
            ],
        ),
    ],
    "Indian": [
        (
            "Butter Chicken",
            False,
            65,
            680,
            [
                "700 g chicken thighs",
                "200 g yoghurt",
                "2 tsp garam masala",
                "400 g passata",
                "100 ml cream",
                "50 g butter",
                "ginger and garlic",
            ],
            [
                "Marinate the chicken in yoghurt and spices for at least an hour if time allows.",
                "Grill until charred.",
                "Simmer in a sauce of butter, passata and cream, and finish with kasuri methi.",
            ],
        ),
        (
            "Chana Masala",
            True,
            35,
            380,
            [
                "2 tins chickpeas",
                "1 onion",
                "3 tomatoes",
                "1 tbsp ginger-garlic paste",
                "2 tsp chana masala spice",
                "coriander",
            ],
            [
                "Fry the onion until golden, then the ginger-garlic paste.",
                "Add tomatoes and spices and cook down.",
                "Add the chickpeas with a little water and simmer for fifteen minutes.",
            ],
        ),
        (
            "Palak Paneer",
            True,
            40,
            420,
            ["500 g spinach", "250 g paneer", "1 onion", "2 tomatoes", "1 green chilli", "2 tbsp cream", "1 tsp cumin"],
            [
                "Blanch and blend the spinach.",
                "Fry cumin, onion and tomato, then add the spinach.",
                "Fold in the fried paneer and a spoon of cream.",
            ],
        ),
        (
            "Lamb Rogan Josh",
            False,
            135,
            740,
            [
                "1 kg lamb shoulder",
                "200 g yoghurt",
                "2 tsp Kashmiri chilli",
                "cardamom, cloves, cinnamon",
                "2 onions",
                "ginger",
            ],
            [
                "Fry the whole spices and onions.",
                "Brown the lamb, add chilli and the yoghurt a spoon at a time.",
                "Cover and cook slowly for ninety minutes or more.",
            ],
        ),
        (
            "Vegetable Biryani",
            True,
            95,
            560,
            [
                "300 g basmati rice",
                "mixed vegetables",
                "150 g yoghurt",
                "2 onions, fried crisp",
                "saffron in milk",
                "mint",
                "whole spices",
            ],
            [
                "Par-cook the rice with whole spices.",
                "Cook the vegetables in a spiced yoghurt masala.",
                "Layer with rice, onions, mint and saffron, seal and steam for twenty-five minutes.",
            ],
        ),
        (
            "Dal Tadka",
            True,
            40,
            300,
            [
                "250 g toor dal",
                "1 tsp turmeric",
                "2 tomatoes",
                "1 tsp cumin seeds",
                "2 dried red chillies",
                "3 cloves garlic",
                "ghee",
            ],
            [
                "Boil the dal with turmeric until soft.",
                "Add the tomatoes and simmer.",
                "Pour over a tadka of ghee, cumin, garlic and chilli.",
            ],
        ),
        (
            "Chicken Tikka Masala",
            False,
            70,
            650,
            ["600 g chicken breast", "yoghurt", "tikka spices", "1 onion", "400 g tomatoes", "150 ml cream"],
            [
                "Marinate and grill the chicken pieces.",
                "Make a masala of onion, tomato and spices.",
                "Add the chicken and cream and simmer for ten minutes.",
            ],
        ),
        (
            "Aloo Gobi",
            True,
            30,
            250,
            [
                "1 cauliflower",
                "3 potatoes",
                "1 onion",
                "1 tsp turmeric",
                "1 tsp cumin",
                "1 tsp garam masala",
                "coriander",
            ],
            [
                "Fry cumin and onion.",
                "Add potatoes, cauliflower and spices with a splash of water.",
                "Cover and cook until tender, then scatter with coriander.",
            ],
        ),
        (
            "Goan Fish Curry",
            False,
            45,
            440,
            [
                "600 g kingfish or cod",
                "200 ml coconut milk",
                "1 tbsp tamarind",
                "Kashmiri chilli",
                "coriander seeds",
                "1 onion",
            ],
            [
                "Grind a paste of chilli, coriander and coconut.",
                "Fry the onion, add the paste and coconut milk.",
                "Poach the fish in the sauce and sharpen with tamarind.",
            ],
        ),
        (
            "Masala Dosa",
            True,
            60,
            410,
            [
                "dosa batter",
                "4 potatoes",
                "1 onion",
                "1 tsp mustard seeds",
                "curry leaves",
                "turmeric",
                "coconut chutney",
            ],
            [
                "Make a potato masala with mustard seeds, curry leaves and turmeric.",
                "Spread the batter thin on a hot griddle.",
                "Fill with the masala, fold, and serve with chutney.",
            ],
        ),
        (
            "Samosas",
            True,
            80,
            340,
            ["250 g flour", "3 potatoes", "100 g peas", "1 tsp cumin", "1 tsp garam masala", "oil for frying"],
            [
                "Make a stiff dough and rest it.",
                "Cook a spiced potato and pea filling.",
                "Shape cones, fill, seal and fry slowly until crisp.",
            ],
        ),
    ],
    "Japanese": [
        (
            "Chicken Teriyaki",
            False,
            25,
            470,
            ["4 chicken thighs", "4 tbsp soy sauce", "4 tbsp mirin", "2 tbsp sake", "1 tbsp sugar", "rice to serve"],
            [
                "Fry the chicken skin side down until crisp.",
                "Add the soy, mirin, sake and sugar.",
                "Reduce to a glaze and slice.",
            ],
        ),
        (
            "Vegetable Tempura",
            True,
            30,
            390,
            [
                "sweet potato",
                "aubergine",
                "shiitake",
                "green beans",
                "100 g flour",
                "ice-cold sparkling water",
                "tentsuyu dipping sauce",
            ],
            [
                "Slice the vegetables.",
                "Mix a lumpy batter with very cold water.",
                "Dip and fry in small batches at 180 C.",
            ],
        ),
        (
            "Miso Soup with Tofu",
            True,
            15,
            150,
            ["1 litre kombu dashi", "3 tbsp white miso", "150 g silken tofu", "wakame", "spring onions"],
            [
                "Heat the dashi without boiling.",
                "Dissolve the miso in a ladle of the broth and stir it back in.",
                "Add tofu, wakame and spring onion.",
            ],
        ),
        (
            "Tonkotsu Ramen",
            False,
            240,
            890,
            [
                "1.5 kg pork bones",
                "500 g pork belly",
                "ramen noodles",
                "4 eggs",
                "soy sauce",
                "mirin",
                "spring onions",
                "nori",
            ],
            [
                "Boil the bones hard for many hours until the broth is milky.",
                "Roll and braise the pork belly, and marinate soft-boiled eggs.",
                "Cook the noodles and assemble the bowls.",
            ],
        ),
        (
            "Salmon Maki Rolls",
            False,
            50,
            350,
            ["300 g sushi rice", "rice vinegar", "4 nori sheets", "200 g sashimi-grade salmon", "cucumber", "wasabi"],
            [
                "Cook and season the rice.",
                "Spread over the nori, lay salmon and cucumber along one edge.",
                "Roll tightly with a mat and slice.",
            ],
        ),
        (
            "Okonomiyaki",
            False,
            35,
            540,
            [
                "200 g flour",
                "2 eggs",
                "1/2 cabbage",
                "150 g pork belly slices",
                "okonomiyaki sauce",
                "Japanese mayonnaise",
                "bonito flakes",
            ],
            [
                "Mix the flour, eggs and shredded cabbage.",
                "Fry as a thick pancake with pork on top, then flip.",
                "Finish with sauce, mayonnaise and bonito.",
            ],
        ),
        (
            "Agedashi Tofu",
            True,
            20,
            260,
            ["300 g firm silken tofu", "potato starch", "kombu dashi", "soy sauce", "mirin", "grated daikon"],
            [
                "Drain and cube the tofu.",
                "Dust with starch and fry until crisp.",
                "Serve in the hot soy-dashi broth with daikon.",
            ],
        ),
        (
            "Beef Sukiyaki",
            False,
            40,
            620,
            [
                "400 g thinly sliced beef",
                "tofu",
                "shiitake",
                "napa cabbage",
                "spring onions",
                "soy sauce",
                "mirin",
                "sugar",
                "eggs",
            ],
            [
                "Make the warishita sauce.",
                "Sear the beef in the pan, add sauce and vegetables.",
                "Simmer at the table and dip in beaten egg.",
            ],
        ),
    ],
}

PREP_FORMS = [
    lambda m: f"Prep: {m} min",
    lambda m: f"Ready in {hm(m)}",
    lambda m: f"Total time: {m} minutes",
    lambda m: f"Time: {hm_short(m)}",
    lambda m: f"Takes about {hm(m)} from start to finish",
]
CAL_FORMS = [
    lambda c: f"Calories: {c} per serving",
    lambda c: f"About {c} kcal a portion",
    lambda c: f"Per serving: {c} calories",
    lambda c: f"Nutrition: {c} kcal per serving",
]
VEG_YES = ["Vegetarian: yes", "Suitable for vegetarians", "Vegetarian", "Meat-free"]
VEG_NO = ["Vegetarian: no", "Contains meat or fish", "Not suitable for vegetarians", "Non-vegetarian"]
CUISINE_FORMS = [
    lambda c: f"Cuisine: {c}",
    lambda c: f"Cuisine: {c}",
    lambda c: f"Style: {c}",
    lambda c: f"Category: {c} cooking",
]
INTROS = [
    "A weeknight favourite in our house.",
    "This one always disappears fast.",
    "Simple, honest food that rewards a little patience.",
    "Good for a crowd, and it keeps well.",
    "My go-to when friends drop by.",
    "Best made with the freshest ingredients you can find.",
    "A classic, written down the way I learned it.",
    "Easy to scale up for a party.",
    "I have cooked this more times than I can count.",
    "It looks like more work than it is.",
    "A recipe my family asks for every month.",
    "Nothing fancy, just very good.",
]
SERVE = [
    "Serve with a simple green salad and some good bread.",
    "Serve with steamed rice or warm flatbread on the side.",
    "A cold drink and a squeeze of citrus are all it needs.",
    "Bring it to the table in the pan and let everyone help themselves.",
    "Garnish with fresh herbs just before serving.",
    "It pairs nicely with a crisp white wine or a light beer.",
]
NOTES = [
    "Prepare all the ingredients before you start cooking; the later steps move quickly.",
    "Season in layers as you go rather than all at the end.",
    "A heavy-based pan gives the most even heat.",
    "If the sauce gets too thick, loosen it with a splash of water.",
    "Use the best ingredients you can afford; with so few of them, each one shows.",
    "Swap in whatever seasonal vegetables you have to hand.",
    "Keep the heat moderate so nothing catches on the bottom.",
    "Let it rest for a few minutes before serving so the flavours settle.",
]
TIPS = [
    "Leftovers keep in the fridge for two days.",
    "Taste and adjust the seasoning before serving.",
    "You can make it a day ahead.",
    "Serve straight away while it is hot.",
    "Double the recipe and freeze half.",
    "",
    "",
]


def hm(m: int) -> str:
    h, r = divmod(m, 60)
    if h == 0:
        return f"{m} minutes"
    hours = "1 hour" if h == 1 else f"{h} hours"
    return hours if r == 0 else f"{hours} {r} minutes"


def hm_short(m: int) -> str:
    h, r = divmod(m, 60)
    if h == 0:
        return f"{m} min"
    return f"{h} hr" if r == 0 else f"{h} hr {r} min"


def slug(cuisine: str, title: str) -> str:
    base = title.lower().replace("ê", "e").replace("è", "e").replace("é", "e").replace("ñ", "n").replace("ç", "c")
    base = re.sub(r"[^a-z0-9]+", "-", base).strip("-")
    if not base.startswith(cuisine.lower()):
        base = f"{cuisine.lower()}-{base}"
    return base


def main() -> None:
    rng = random.Random(SEED)
    names = [a for a, _ in AUTHORS]
    weights = [w for _, w in AUTHORS]
    DOCS.mkdir(parents=True, exist_ok=True)
    for old in DOCS.glob("*.md"):
        old.unlink()
    rows = []
    for cuisine, dishes in DISHES.items():
        for title, veg, base_prep, base_cal, ingredients, steps in dishes:
            prep = max(5, int(round(base_prep * rng.uniform(0.85, 1.15) / 5.0)) * 5)
            cal = min(900, max(150, int(round(base_cal * rng.uniform(0.9, 1.1)))))
            author = rng.choices(names, weights)[0]
            servings = rng.choice([2, 4, 4, 4, 6, 6, 8])
            prep_text = rng.choice(PREP_FORMS)(prep)
            cal_text = rng.choice(CAL_FORMS)(cal)
            veg_text = rng.choice(VEG_YES if veg else VEG_NO)
            doc_id = slug(cuisine, title) + ".md"
            lines = [
                f"# {title}",
                "",
                f"By {author}",
                "",
                f"{rng.choice(CUISINE_FORMS)(cuisine)}  ",
                f"Serves {servings}  ",
                f"{prep_text}  ",
                f"{cal_text}  ",
                f"{veg_text}",
                "",
                " ".join(rng.sample(INTROS, 2)),
                "",
                "## Ingredients",
                "",
                *[f"- {i}" for i in ingredients],
                "",
                "## Method",
                "",
                *[f"{n}. {s}" for n, s in enumerate(steps, 1)],
            ]
            lines += ["", "## Notes", "", *[f"- {n}" for n in rng.sample(NOTES, 2)], "", rng.choice(SERVE)]
            tip = rng.choice(TIPS)
            if tip:
                lines += [tip]
            (DOCS / doc_id).write_text("\n".join(lines) + "\n", encoding="utf-8")
            rows.append(
                {
                    "doc_id": doc_id,
                    "kind": "properties",
                    "row": {
                        "cuisine": cuisine,
                        "prep_minutes": prep,
                        "vegetarian": veg,
                        "calories": cal,
                        "author": author,
                    },
                    "raw": {"title": title, "prep": prep_text, "calories": cal_text, "diet": veg_text},
                }
            )
    assert len(rows) == 60, len(rows)
    assert len({r["doc_id"] for r in rows}) == 60
    with ANNOTATIONS.open("w", encoding="utf-8") as f:
        for r in sorted(rows, key=lambda r: r["doc_id"]):
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"wrote {len(rows)} documents to {DOCS} and {ANNOTATIONS}")


if __name__ == "__main__":
    main()
