"""The dashboard in the rulebooks' four languages (English, Italian, French, Spanish), chosen per table.

Strings are written in English in the templates and code (``_("Event log")``); :data:`CATALOGUE` gives
the other three. A string missing from the catalogue shows in English rather than failing. Person
letters come from vision.cells.labels (one source of truth for what a circle with a letter means).
"""

from __future__ import annotations

from typing import Any

from companion.tracker import PERSON_LEVEL, dice_used
from vision.cells.labels import PERSON_LETTERS

LANGUAGES: tuple[str, ...] = ("en", "it", "fr", "es")
LANGUAGE_NAMES: dict[str, str] = {"en": "English", "it": "Italiano", "fr": "Français", "es": "Español"}

# English -> (Italian, French, Spanish)
CATALOGUE: dict[str, tuple[str, str, str]] = {
    "Saint Malo table": ("Tavolo di Saint Malo", "Table de Saint-Malo", "Mesa de Saint Malo"),
    "Table": ("Tavolo", "Table", "Mesa"),
    "Camera": ("Telecamera", "Caméra", "Cámara"),
    "Games": ("Partite", "Parties", "Partidas"),
    "New game": ("Nuova partita", "Nouvelle partie", "Nueva partida"),
    "Game {n}": ("Partita {n}", "Partie {n}", "Partida {n}"),
    "Table PIN": ("PIN del tavolo", "PIN de la table", "PIN de la mesa"),
    "(asked once on this phone; shown on the host's screen)": (
        "(chiesto una volta su questo telefono; è sullo schermo dell'host)",
        "(demandé une fois sur ce téléphone ; affiché sur l'écran de l'hôte)",
        "(se pide una vez en este teléfono; aparece en la pantalla del anfitrión)"),
    "City of {name}": ("Città di {name}", "Ville de {name}", "Ciudad de {name}"),
    "live": ("in diretta", "en direct", "en directo"),
    "reconnecting…": ("riconnessione…", "reconnexion…", "reconectando…"),
    "connecting…": ("connessione…", "connexion…", "conectando…"),
    "What is really at {cell} of {name}?": ("Cosa c'è davvero in {cell} di {name}?",
                                            "Qu'y a-t-il vraiment en {cell} chez {name} ?",
                                            "¿Qué hay de verdad en {cell} de {name}?"),
    "The camera keeps misreading this cell: always read it this way": (
        "La telecamera legge sempre male questa casella: leggila sempre così",
        "La caméra lit toujours mal cette case : toujours la lire ainsi",
        "La cámara lee mal esta casilla una y otra vez: leerla siempre así"),
    "Correct the cell": ("Correggi la casella", "Corriger la case", "Corregir la casilla"),
    "Cancel": ("Annulla", "Annuler", "Cancelar"),
    "Turn": ("Turno", "Tour", "Turno"),
    "Game over": ("Partita finita", "Partie terminée", "Partida terminada"),
    "This drawing breaks a rule": ("Questo disegno viola una regola", "Ce dessin enfreint une règle",
                                   "Este dibujo rompe una regla"),
    "Cells": ("Caselle", "Cases", "Casillas"),
    "Fix the board, tap a misread cell to correct it, or let it stand:": (
        "Sistemate il foglio, toccate una casella letta male per correggerla, o lasciatelo così:",
        "Corrigez le plateau, touchez une case mal lue pour la corriger, ou laissez-le tel quel :",
        "Arreglad el tablero, tocad una casilla mal leída para corregirla, o dejadlo como está:"),
    "Why it stands": ("Perché resta", "Pourquoi il reste", "Por qué se queda"),
    "we agree to play it as drawn": ("siamo d'accordo così", "on est d'accord pour le garder",
                                     "estamos de acuerdo en dejarlo"),
    "It stands (override)": ("Resta così (forza)", "Il reste (forcer)", "Se queda (forzar)"),
    "Details": ("Dettagli", "Détails", "Detalles"),
    "Drawing in progress": ("Disegno in corso", "Dessin en cours", "Dibujo en curso"),
    "Tap a cell to correct it.": ("Tocca una casella per correggerla.", "Touchez une case pour la corriger.",
                                  "Toca una casilla para corregirla."),
    "to play": ("di turno", "joue", "juega"),
    "VP": ("PV", "PV", "PV"),
    "Coins": ("Monete", "Pièces", "Monedas"),
    "Logs": ("Tronchi", "Bûches", "Troncos"),
    "Defence": ("Difesa", "Défense", "Defensa"),
    "Cannons lost": ("Cannoni persi", "Canons perdus", "Cañones perdidos"),
    "Cannons": ("Cannoni", "Canons", "Cañones"),
    "Camera unsure": ("Telecamera incerta", "Caméra incertaine", "Cámara dudosa"),
    "Standing camera readings": ("Letture fisse della telecamera", "Lectures fixées de la caméra",
                                 "Lecturas fijas de la cámara"),
    "{cell} read as {item}": ("{cell} letta come {item}", "{cell} lue comme {item}", "{cell} leída como {item}"),
    "Board not in view.": ("Foglio non inquadrato.", "Plateau hors champ.", "Tablero fuera de la vista."),
    "Change the game": ("Modifica la partita", "Modifier la partie", "Cambiar la partida"),
    "Enter {name}'s move by hand": ("Inserisci a mano la mossa di {name}", "Saisir le coup de {name} à la main",
                                    "Introducir a mano la jugada de {name}"),
    "Dice": ("Dadi", "Dés", "Dados"),
    "die {n}": ("dado {n}", "dé {n}", "dado {n}"),
    "Choice": ("Scelta", "Choix", "Elección"),
    "drawn in the city (worked out from the cells)": ("disegnato in città (dedotto dalle caselle)",
                                                      "dessiné dans la ville (déduit des cases)",
                                                      "dibujado en la ciudad (deducido de las casillas)"),
    "log delivery": ("consegna di tronchi", "livraison de bûches", "entrega de troncos"),
    "nothing possible (swords only)": ("niente possibile (solo spade)", "rien de possible (épées seules)",
                                       "nada posible (solo espadas)"),
    "Drawn: pick a symbol, then tap cells on {name}'s city": (
        "Disegnato: scegli un simbolo, poi tocca le caselle della città di {name}",
        "Dessiné : choisissez un symbole, puis touchez les cases de la ville de {name}",
        "Dibujado: elige un símbolo y toca las casillas de la ciudad de {name}"),
    "nothing tapped yet": ("ancora nessuna casella", "aucune case touchée", "ninguna casilla aún"),
    "Logs delivered": ("Tronchi consegnati", "Bûches livrées", "Troncos entregados"),
    "It breaks a rule but the table agrees": ("Viola una regola ma il tavolo è d'accordo",
                                              "Il enfreint une règle mais la table est d'accord",
                                              "Rompe una regla pero la mesa está de acuerdo"),
    "Record the move": ("Registra la mossa", "Enregistrer le coup", "Registrar la jugada"),
    "Take back": ("Annulla la mossa", "Reprendre", "Deshacer"),
    "The game is over.": ("La partita è finita.", "La partie est terminée.", "La partida ha terminado."),
    "Working out the options…": ("Calcolo delle opzioni…", "Calcul des options…", "Calculando opciones…"),
    "{n} turned": ("{n} girati", "{n} tournés", "{n} girados"),
    "{n} coins": ("{n} monete", "{n} pièces", "{n} monedas"),
    "best": ("migliore", "meilleur", "mejor"),
    "No legal option with these dice.": ("Nessuna opzione legale con questi dadi.",
                                         "Aucune option légale avec ces dés.",
                                         "Ninguna opción legal con estos dados."),
    "No dice in the tray.": ("Nessun dado nel vassoio.", "Aucun dé dans le plateau.", "Ningún dado en la bandeja."),
    "Event log": ("Registro", "Journal", "Registro"),
    "taken back": ("annullata", "reprise", "deshecha"),
    "legal": ("legale", "légal", "legal"),
    "breaks a rule": ("viola una regola", "enfreint une règle", "rompe una regla"),
    "overridden": ("forzata", "forcé", "forzada"),
    "Rules": ("Regole", "Règles", "Reglas"),
    "Final tally": ("Punteggio finale", "Décompte final", "Recuento final"),
    "Play": ("Gioco", "Jeu", "Juego"),
    "Full city": ("Città piena", "Ville pleine", "Ciudad llena"),
    "Churches": ("Chiese", "Églises", "Iglesias"),
    "Empty spaces": ("Spazi vuoti", "Cases vides", "Espacios vacíos"),
    "Winner": ("Vincitore", "Gagnant", "Ganador"),
    "Winners": ("Vincitori", "Gagnants", "Ganadores"),
    "Pirates": ("Pirati", "Pirates", "Piratas"),
    "Pirate track": ("Tracciato dei pirati", "Piste des pirates", "Marcador de piratas"),
    "{n} boxes marked": ("{n} caselle segnate", "{n} cases cochées", "{n} casillas marcadas"),
    "the camera reads {n}": ("la telecamera legge {n}", "la caméra lit {n}", "la cámara lee {n}"),
    "Next attack: strength {s} in {n} boxes.": ("Prossimo attacco: forza {s} tra {n} caselle.",
                                                "Prochaine attaque : force {s} dans {n} cases.",
                                                "Próximo ataque: fuerza {s} en {n} casillas."),
    "Would lose a cannon now": ("Perderebbe un cannone ora", "Perdrait un canon maintenant",
                                "Perdería un cañón ahora"),
    "Everyone holds.": ("Tutti resistono.", "Tout le monde tient.", "Todos resisten."),
    "All six attacks are over; swords are ignored.": ("I sei attacchi sono finiti; le spade non contano.",
                                                      "Les six attaques sont passées ; les épées ne comptent plus.",
                                                      "Los seis ataques han pasado; las espadas no cuentan."),
    "Not finished.": ("Non finita.", "Pas terminée.", "Sin terminar."),
    "No games yet.": ("Ancora nessuna partita.", "Aucune partie pour l'instant.", "Aún no hay partidas."),
    "in progress": ("in corso", "en cours", "en curso"),
    "set aside": ("messa da parte", "mise de côté", "apartada"),
    "unfinished": ("non finita", "inachevée", "sin terminar"),
    "Resume this game": ("Riprendi questa partita", "Reprendre cette partie", "Reanudar esta partida"),
    "Source": ("Sorgente", "Source", "Fuente"),
    "none": ("nessuna", "aucune", "ninguna"),
    "grid": ("griglia", "grille", "cuadrícula"),
    "uncertain cell": ("casella incerta", "case incertaine", "casilla dudosa"),
    "die": ("dado", "dé", "dado"),
    "No camera picture yet. With no camera, moves are entered by hand on the Table page.": (
        "Ancora nessuna immagine. Senza telecamera le mosse si inseriscono a mano nella pagina Tavolo.",
        "Pas encore d'image. Sans caméra, les coups se saisissent à la main sur la page Table.",
        "Aún no hay imagen. Sin cámara, las jugadas se introducen a mano en la página Mesa."),
    "Camera view with what was recognised drawn over it": ("Immagine della telecamera con ciò che è stato letto",
                                                           "Image de la caméra avec ce qui a été reconnu",
                                                           "Imagen de la cámara con lo reconocido"),
    "Back to the table": ("Torna al tavolo", "Retour à la table", "Volver a la mesa"),
    "Phones at the table": ("Telefoni al tavolo", "Téléphones à table", "Teléfonos en la mesa"),
    "Open this address on each phone (same Wi-Fi), or scan the code:": (
        "Apri questo indirizzo su ogni telefono (stesso Wi-Fi), o inquadra il codice:",
        "Ouvrez cette adresse sur chaque téléphone (même Wi-Fi), ou scannez le code :",
        "Abre esta dirección en cada teléfono (misma Wi-Fi), o escanea el código:"),
    "The table PIN is printed where the companion was started (its screen or log); `companion pin` shows it again.": (
        "Il PIN del tavolo è stampato dove è stato avviato il companion (schermo o log); `companion pin` lo mostra di nuovo.",
        "Le PIN de la table s'affiche là où le companion a démarré (écran ou journal) ; `companion pin` le montre à nouveau.",
        "El PIN de la mesa aparece donde se inició el companion (pantalla o registro); `companion pin` lo vuelve a mostrar."),
    "A game is running; starting a new one sets it aside (it stays in the list of games and can be resumed).": (
        "C'è una partita in corso; una nuova la mette da parte (resta nell'elenco e si può riprendere).",
        "Une partie est en cours ; en commencer une autre la met de côté (elle reste dans la liste et peut reprendre).",
        "Hay una partida en curso; empezar otra la aparta (queda en la lista y se puede reanudar)."),
    "Language": ("Lingua", "Langue", "Idioma"),
    "Game": ("Gioco", "Jeu", "Juego"),
    "Player {n}": ("Giocatore {n}", "Joueur {n}", "Jugador {n}"),
    "Name": ("Nome", "Nom", "Nombre"),
    "Board seat": ("Posto del foglio", "Place du plateau", "Puesto del tablero"),
    "seat {s} (markers {a}–{b})": ("posto {s} (marcatori {a}–{b})", "place {s} (repères {a}–{b})",
                                   "puesto {s} (marcadores {a}–{b})"),
    "Start player": ("Primo giocatore", "Premier joueur", "Jugador inicial"),
    "picamera2, opencv:0 or none": ("picamera2, opencv:0 o none", "picamera2, opencv:0 ou none",
                                    "picamera2, opencv:0 o none"),
    "Start the game": ("Inizia la partita", "Commencer la partie", "Empezar la partida"),
    "Each seat starts from the handwriting the camera learned there last game": (
        "Ogni posto riparte dalla scrittura che la telecamera vi ha imparato nell'ultima partita",
        "Chaque place reprend l'écriture que la caméra y a apprise à la dernière partie",
        "Cada asiento parte de la letra que la cámara aprendió allí en la última partida"),
    # dice faces and symbols
    "log": ("tronco", "bûche", "tronco"), "crate": ("cassa", "caisse", "caja"),
    "wall": ("muro", "mur", "muro"), "cross": ("croce", "croix", "cruz"),
    "head": ("testa", "tête", "cabeza"), "swords": ("spade", "épées", "espadas"),
    # item names
    "empty": ("vuota", "vide", "vacía"), "house": ("casa", "maison", "casa"),
    "church {n}": ("chiesa {n}", "église {n}", "iglesia {n}"),
    "citizen": ("cittadino", "citoyen", "ciudadano"), "soldier": ("soldato", "soldat", "soldado"),
    "priest": ("prete", "prêtre", "sacerdote"), "architect": ("architetto", "architecte", "arquitecto"),
    "merchant": ("mercante", "marchand", "comerciante"), "juggler": ("giocoliere", "jongleur", "malabarista"),
    "noble": ("nobile", "noble", "noble"),
    # sources and camera states
    "hand": ("a mano", "à la main", "a mano"), "table": ("dal tavolo", "par la table", "por la mesa"),
    "off": ("spenta", "éteinte", "apagada"), "demo": ("demo", "démo", "demo"),
    "demo stopped": ("demo ferma", "démo arrêtée", "demo detenida"), "ok": ("ok", "ok", "ok"),
    "missing": ("assente", "absente", "ausente"),
    # log lines
    "{who}: {what}": ("{who}: {what}", "{who} : {what}", "{who}: {what}"),
    "no symbol possible, swords only": ("nessun simbolo possibile, solo spade", "aucun symbole possible, épées seules",
                                        "ningún símbolo posible, solo espadas"),
    "{n} log(s) delivered": ("{n} tronchi consegnati", "{n} bûche(s) livrée(s)", "{n} tronco(s) entregado(s)"),
    "nothing drawn": ("niente disegnato", "rien dessiné", "nada dibujado"),
    "Taken back": ("Annullata", "Repris", "Deshecha"),
    "Game started": ("Partita iniziata", "Partie commencée", "Partida empezada"),
    "pirates attack with {n}": ("i pirati attaccano con {n}", "les pirates attaquent avec {n}",
                                "los piratas atacan con {n}"),
    "{n} lose a cannon": ("{n} perdono un cannone", "{n} perdent un canon", "{n} pierden un cañón"),
    "all hold": ("tutti resistono", "tout le monde tient", "todos resisten"),
    "pirate boxes": ("caselle pirata", "cases pirates", "casillas pirata"),
    "{a} tie on {vp} VP; {b} wins with more empty spaces ({n}).": (
        "{a} pari a {vp} PV; vince {b} con più spazi vuoti ({n}).",
        "{a} à égalité avec {vp} PV ; {b} gagne avec plus de cases vides ({n}).",
        "{a} empatan a {vp} PV; gana {b} con más espacios vacíos ({n})."),
    "{a} tie on {vp} VP and on empty spaces ({n}): they share the win.": (
        "{a} pari a {vp} PV e negli spazi vuoti ({n}): vincono insieme.",
        "{a} à égalité avec {vp} PV et en cases vides ({n}) : ils partagent la victoire.",
        "{a} empatan a {vp} PV y en espacios vacíos ({n}): comparten la victoria."),
    "{a} has the most VP ({vp}).": ("{a} ha più PV ({vp}).", "{a} a le plus de PV ({vp}).",
                                    "{a} tiene más PV ({vp})."),
    " and ": (" e ", " et ", " y "),
    # answers to changes
    "Tap the cells that were drawn, or choose a log delivery or nothing possible.": (
        "Tocca le caselle disegnate, o scegli consegna di tronchi o niente possibile.",
        "Touchez les cases dessinées, ou choisissez livraison de bûches ou rien de possible.",
        "Toca las casillas dibujadas, o elige entrega de troncos o nada posible."),
    "That move breaks a rule": ("Questa mossa viola una regola", "Ce coup enfreint une règle",
                                "Esta jugada rompe una regla"),
    "Move recorded.": ("Mossa registrata.", "Coup enregistré.", "Jugada registrada."),
    "Move recorded as overridden.": ("Mossa registrata, forzata.", "Coup enregistré, forcé.",
                                     "Jugada registrada, forzada."),
    "{cell} of {name}: {item}.": ("{cell} di {name}: {item}.", "{cell} de {name} : {item}.",
                                  "{cell} de {name}: {item}."),
    "The drawing stands as drawn.": ("Il disegno resta così.", "Le dessin reste tel quel.",
                                     "El dibujo se queda como está."),
    "Last move taken back.": ("Ultima mossa annullata.", "Dernier coup repris.", "Última jugada deshecha."),
    "Tap cells to draw": ("Tocca le caselle per disegnare", "Touchez les cases pour dessiner",
                          "Toca casillas para dibujar"),
    "Done drawing": ("Fine disegno", "Dessin terminé", "Dibujo terminado"),
    # the camera's question about a close call (companion.reading)
    "Which did {name} draw?": ("Cosa ha disegnato {name}?", "Qu'a dessiné {name} ?", "¿Qué ha dibujado {name}?"),
    "The camera is not sure, and the rules allow both. Tap the one on the board.": (
        "La telecamera non è sicura e le regole permettono entrambi. Toccate quello sul foglio.",
        "La caméra n'est pas sûre et les règles permettent les deux. Touchez celui du plateau.",
        "La cámara no está segura y las reglas permiten ambos. Tocad el que está en el tablero."),
    "The camera is not sure, and one reading is not allowed. Tap the one on the board: if it is that one, the move "
    "is disputed.": (
        "La telecamera non è sicura e una lettura non è permessa. Toccate quella sul foglio: se è quella, la mossa "
        "è contestata.",
        "La caméra n'est pas sûre et une lecture n'est pas permise. Touchez celle du plateau : si c'est celle-là, le "
        "coup est contesté.",
        "La cámara no está segura y una lectura no está permitida. Tocad la del tablero: si es esa, la jugada queda "
        "en disputa."),
    "not allowed": ("non permesso", "interdit", "no permitido"),
    "Recorded": ("Registrato", "Enregistré", "Registrado"),
    # teaching the camera each player's handwriting (web/templates/teach.html, routes.teach)
    "Teach the handwriting": ("Insegna la calligrafia", "Apprendre l'écriture", "Enseñar la letra"),
    "Teach the camera each player's handwriting": (
        "Insegna alla telecamera la calligrafia di ogni giocatore",
        "Apprendre à la caméra l'écriture de chaque joueur",
        "Enseñar a la cámara la letra de cada jugador"),
    ("The camera learns each player's hand as you play. A teaching sheet gives it a head start: each player draws "
     "this layout on their own city board, every symbol twice, with the board's markers on as in play."): (
        "La telecamera impara la mano di ogni giocatore mentre giocate. Un foglio di prova le dà un vantaggio: "
        "ogni giocatore disegna questo schema sul proprio foglio città, ogni simbolo due volte, con i marcatori "
        "del foglio al loro posto come in partita.",
        "La caméra apprend la main de chaque joueur au fil de la partie. Une feuille d'apprentissage lui donne "
        "une longueur d'avance : chaque joueur dessine ce modèle sur son propre plateau de ville, chaque symbole "
        "deux fois, avec les marqueurs du plateau en place comme en jeu.",
        "La cámara aprende la mano de cada jugador mientras jugáis. Una hoja de muestra le da ventaja: cada "
        "jugador dibuja este esquema en su propio tablero de ciudad, cada símbolo dos veces, con los marcadores "
        "del tablero puestos como en la partida."),
    ("Then teach from the table camera, or from a photo of the sheets taken with this phone from straight above. "
     "A board that does not show the layout is left as it is."): (
        "Poi insegnate dalla telecamera del tavolo, o da una foto dei fogli scattata con questo telefono "
        "dall'alto. Un foglio che non mostra lo schema resta com'è.",
        "Puis apprenez depuis la caméra de la table, ou depuis une photo des feuilles prise avec ce téléphone "
        "bien au-dessus. Un plateau qui ne montre pas le modèle est laissé tel quel.",
        "Luego enseñad desde la cámara de la mesa, o desde una foto de las hojas hecha con este teléfono "
        "desde arriba. Un tablero que no muestra el esquema se deja como está."),
    "Teaching layout": ("Schema di prova", "Modèle d'apprentissage", "Esquema de muestra"),
    "Whose sheet": ("Di chi è il foglio", "À qui est la feuille", "De quién es la hoja"),
    "every board in the picture": ("ogni foglio nella foto", "chaque plateau de la photo",
                                   "cada tablero de la foto"),
    "Teach from the table camera": ("Insegna dalla telecamera del tavolo", "Apprendre depuis la caméra de la table",
                                    "Enseñar desde la cámara de la mesa"),
    "No camera picture yet: use a photo.": ("Ancora nessuna immagine dalla telecamera: usate una foto.",
                                            "Pas encore d'image de la caméra : utilisez une photo.",
                                            "Aún no hay imagen de la cámara: usad una foto."),
    "Photo of the sheets": ("Foto dei fogli", "Photo des feuilles", "Foto de las hojas"),
    "Teach from the photo": ("Insegna dalla foto", "Apprendre depuis la photo", "Enseñar desde la foto"),
    "seat {s}": ("posto {s}", "place {s}", "puesto {s}"),
    "{who} taught": ("{who} imparato", "{who} appris", "{who} aprendido"),
    "the camera misread {cells} before, {now} now": (
        "prima la telecamera leggeva male {cells}, ora {now}",
        "la caméra lisait mal {cells} avant, {now} maintenant",
        "antes la cámara leía mal {cells}, ahora {now}"),
    "seat {s} not taught": ("posto {s} non imparato", "place {s} non apprise", "puesto {s} no aprendido"),
    "Choose a photo of the teaching sheets, or teach from the table camera.": (
        "Scegliete una foto dei fogli di prova, o insegnate dalla telecamera del tavolo.",
        "Choisissez une photo des feuilles d'apprentissage, ou apprenez depuis la caméra de la table.",
        "Elegid una foto de las hojas de muestra, o enseñad desde la cámara de la mesa."),
}

# Plain sentences for the rules a drawing can break (English shows the engine's own, more precise words).
RULE_TEXT: dict[str, tuple[str, str, str]] = {
    "wall.outer_only": ("I muri vanno solo sugli spazi esterni.", "Les murs se dessinent seulement sur les cases "
                        "extérieures.", "Los muros solo van en los espacios exteriores."),
    "crate.connected": ("Le casse disegnate insieme devono toccarsi.", "Les caisses dessinées ensemble doivent se "
                        "toucher.", "Las cajas dibujadas juntas deben tocarse."),
    "place.filled": ("Quella casella è già occupata.", "Cette case est déjà remplie.", "Esa casilla ya está ocupada."),
    "place.tower": ("Sulle torri non si disegna.", "On ne dessine pas sur les tours.", "En las torres no se dibuja."),
    "place.duplicate": ("Una casella è disegnata due volte.", "Une case est dessinée deux fois.",
                        "Una casilla está dibujada dos veces."),
    "place.wrong_item": ("Questo simbolo non disegna quell'oggetto.", "Ce symbole ne dessine pas cet objet.",
                         "Este símbolo no dibuja ese objeto."),
    "cross.one_church": ("Le croci fanno una sola chiesa.", "Les croix font une seule église.",
                         "Las cruces hacen una sola iglesia."),
    "head.one_person": ("Le teste fanno una sola persona.", "Les têtes font une seule personne.",
                        "Las cabezas hacen una sola persona."),
    "house.no_architect": ("Le case le costruisce solo un architetto.", "Seul un architecte construit des maisons.",
                           "Las casas solo las construye un arquitecto."),
    "house.connected": ("Le case devono toccarsi.", "Les maisons doivent se toucher.", "Las casas deben tocarse."),
    "architect.adjacent": ("Le case devono toccare l'architetto.", "Les maisons doivent toucher l'architecte.",
                           "Las casas deben tocar al arquitecto."),
    "architect.max_houses": ("Un architetto costruisce al massimo 3 case.", "Un architecte construit au plus 3 "
                             "maisons.", "Un arquitecto construye como mucho 3 casas."),
    "architect.logs": ("Ogni casa costa un tronco.", "Chaque maison coûte une bûche.", "Cada casa cuesta un tronco."),
    "dice.too_few": ("Non ci sono abbastanza dadi per questo.", "Pas assez de dés pour cela.",
                     "No hay dados suficientes para esto."),
    "dice.turn_count": ("Troppi dadi girati.", "Trop de dés tournés.", "Demasiados dados girados."),
    "dice.turn_swords": ("Le spade non si girano e non si scelgono.", "Les épées ne se tournent ni ne se choisissent.",
                         "Las espadas no se giran ni se eligen."),
    "dice.turn_unused": ("Un dado girato non è usato.", "Un dé tourné n'est pas utilisé.",
                         "Un dado girado no se usa."),
    "dice.turn_coins": ("Non ci sono monete per girare i dadi.", "Pas assez de pièces pour tourner les dés.",
                        "No hay monedas para girar los dados."),
    "log.coins": ("Consegnare tronchi costa 2 monete.", "Livrer des bûches coûte 2 pièces.",
                  "Entregar troncos cuesta 2 monedas."),
    "log.not_log_action": ("I tronchi si consegnano solo col simbolo tronco.", "Les bûches se livrent seulement avec "
                           "le symbole bûche.", "Los troncos solo se entregan con el símbolo tronco."),
    "action.must_use": ("Con questi dadi bisogna fare un'azione.", "Ces dés permettent une action : il faut la faire.",
                        "Con estos dados hay que hacer una acción."),
    "bonus.one_person": ("Il bonus della torre è una sola persona.", "Le bonus de tour est une seule personne.",
                         "El bonus de la torre es una sola persona."),
    "bonus.level": ("Il bonus della torre non permette quella persona.", "Le bonus de tour ne permet pas cette "
                    "personne.", "El bonus de la torre no permite esa persona."),
    "bonus.not_earned": ("Il bonus della torre non è stato guadagnato.", "Le bonus de tour n'est pas gagné.",
                         "El bonus de la torre no se ha ganado."),
    "dice-unseen": ("I cinque dadi non sono stati visti nel vassoio.", "Les cinq dés n'ont pas été vus dans le "
                    "plateau.", "No se vieron los cinco dados en la bandeja."),
    "pass.turned": ("Chi passa non gira dadi.", "Qui passe ne tourne aucun dé.", "Quien pasa no gira dados."),
    "game.over": ("La partita è finita.", "La partie est terminée.", "La partida ha terminado."),
    "turn.not_current": ("Non è il suo turno.", "Ce n'est pas son tour.", "No es su turno."),
}


def translate(lang: str, text: str, **values: Any) -> str:
    row = CATALOGUE.get(text)
    if row is not None and lang in LANGUAGES[1:]:
        text = row[LANGUAGES.index(lang) - 1]
    return text.format(**values) if values else text


def letters_for(lang: str) -> dict[str, str]:
    """Person (city notation) -> the letter this table draws in the circle."""
    return PERSON_LETTERS.get(lang, PERSON_LETTERS["en"])


def item_label(lang: str, item: str) -> str:
    """A cell's content in words, with a person's letter: 'juggler (G)' at an Italian table."""
    if item in (".", ""):
        return translate(lang, "empty")
    if item in PERSON_LEVEL:
        name = {"c": "citizen", "s": "soldier", "p": "priest", "a": "architect", "m": "merchant",
                "j": "juggler", "n": "noble"}[item]
        return f"{translate(lang, name)} ({letters_for(lang)[item]})"
    if item.isdigit():
        return translate(lang, "church {n}", n=item)
    return translate(lang, {"W": "wall", "G": "crate", "H": "house"}.get(item, item))


def palette_items(lang: str) -> list[dict[str, str]]:
    """What the symbol picker offers, in the table's letters: empty, wall, crate, house, churches, persons."""
    items = [{"item": ".", "glyph": "·", "kind": "empty", "name": translate(lang, "empty")},
             {"item": "W", "glyph": "▦", "kind": "wall", "name": translate(lang, "wall")},
             {"item": "G", "glyph": "⊠", "kind": "crate", "name": translate(lang, "crate")},
             {"item": "H", "glyph": "⌂", "kind": "house", "name": translate(lang, "house")}]
    items += [{"item": str(n), "glyph": f"✝{n}", "kind": "church", "name": translate(lang, "church {n}", n=n)}
              for n in range(1, 6)]
    letters = letters_for(lang)
    for person in "cspamjn":
        items.append({"item": person, "glyph": letters[person], "kind": "person",
                      "name": item_label(lang, person).split(" (")[0]})
    return items


def plain_errors(lang: str, errors: list[dict[str, str]]) -> list[dict[str, str]]:
    """Each broken rule as a sentence for the players, the rule id kept for the details line."""
    out = []
    for e in errors or []:
        rule = str(e.get("rule", ""))
        row = RULE_TEXT.get(rule)
        text = row[LANGUAGES.index(lang) - 1] if row is not None and lang in LANGUAGES[1:] else e.get("message", "")
        out.append({"rule": rule, "text": text, "message": str(e.get("message", ""))})
    return out


def describe_action(lang: str, action: dict[str, Any], names: list[str]) -> str:
    """The log's line for a move, in the table's language and letters."""
    p = int(action.get("player", 0))
    who = names[p] if 0 <= p < len(names) else str(p + 1)
    symbol = action.get("symbol")
    turned = int(action.get("turned", 0) or 0)
    turned_txt = ", " + translate(lang, "{n} turned", n=turned) if turned else ""
    if symbol is None:
        what = translate(lang, "no symbol possible, swords only")
    elif symbol == "log":
        what = translate(lang, "{n} log(s) delivered", n=action.get("logs", 0)) + turned_txt
    elif not action.get("place"):
        what = f"{translate(lang, symbol)}, {translate(lang, 'nothing drawn')}{turned_txt}"
    else:
        drawn = ", ".join(f"{item_label(lang, pl['item'])} {pl['cell']}" for pl in action["place"])
        what = f"{translate(lang, symbol)} ×{dice_used(action)}{turned_txt} — {drawn}"
    return translate(lang, "{who}: {what}", who=who, what=what)
