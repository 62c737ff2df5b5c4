package main

import (
	"strings"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// Candidate names are a first and a last name drawn from these lists by a
// hash of the candidate's number, so that names repeat as in life and a
// search for one last name finds a few candidates per thousand. A few carry
// letters outside ASCII, so that the folded copies and the search are
// exercised beyond ASCII.
var firstNames = []string{
	"Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "John", "Margaret", "Dennis",
	"Ken", "Radia", "Linus", "Guido", "Bjarne", "Anita", "Leslie", "Tim", "Hedy", "Katherine",
	"Dorothy", "Mary", "Annie", "Sophie", "Karen", "Shafi", "Jean", "Adele", "Evelyn", "Joan",
	"Carol", "Lynn", "Ruth", "Elena", "Marta", "Lucía", "Chloé", "Zoë", "Søren", "Björn",
	"Ingrid", "Astrid", "Håkon", "Mateo", "Diego", "Camila", "Valentina", "Santiago", "Amara", "Chidi",
	"Ngozi", "Kwame", "Abena", "Yusuf", "Fatima", "Omar", "Layla", "Arjun", "Priya", "Ravi",
	"Ananya", "Vikram", "Mei", "Wei", "Hiroshi", "Yuki", "Sakura", "Min-jun", "Seo-yeon", "Thanh",
	"Linh", "Olga", "Dmitri", "Katya", "Pavel", "Zofia", "Jakub", "Agnieszka", "Tomasz", "Eszter",
	"Bence", "Luca", "Giulia", "Matteo", "Chiara", "Pierre", "Amélie", "Théo", "Léa", "Jonas",
	"Lena", "Felix", "Mia", "Noah", "Emma", "Oliver", "Isla", "Finn", "Aoife", "Siobhán",
}

var lastNames = []string{
	"Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Allen", "McCarthy", "Hamilton", "Ritchie",
	"Thompson", "Perlman", "Torvalds", "van Rossum", "Stroustrup", "Borg", "Lamport", "Berners-Lee", "Lamarr", "Johnson",
	"Vaughan", "Jackson", "Easley", "Wilson", "Spärck Jones", "Goldwasser", "Bartik", "Goldberg", "Boyd", "Clarke",
	"Shaw", "Conway", "Teitelman", "Garcia", "Fernández", "Núñez", "Martínez", "Rodríguez", "López", "Hernández",
	"Ødegaard", "Andersen", "Lindqvist", "Bergström", "Johansson", "Nyström", "Haugen", "Okonkwo", "Adeyemi", "Mensah",
	"Boateng", "Nwosu", "Abubakar", "Haddad", "Khalil", "Mansour", "Nasser", "Sharma", "Patel", "Iyer",
	"Krishnan", "Reddy", "Banerjee", "Chen", "Wang", "Zhang", "Liu", "Tanaka", "Suzuki", "Watanabe",
	"Kobayashi", "Kim", "Park", "Choi", "Nguyen", "Tran", "Pham", "Ivanova", "Petrov", "Sokolov",
	"Kowalski", "Wiśniewski", "Nowak", "Horváth", "Szabó", "Rossi", "Bianchi", "Esposito", "Ricci", "Dubois",
	"Lefèvre", "Moreau", "Girard", "Müller", "Schmidt", "Schröder", "Fischer", "Weiß", "O'Brien", "Murphy",
	"Kelly", "Byrne", "Walsh", "Gallagher", "MacLeod", "Campbell", "Stewart", "Fraser", "Davies", "Evans",
	"Hughes", "Llewellyn", "Pritchard", "Baptiste", "Joseph", "Pierre-Louis", "Mbeki", "Dlamini", "Ndlovu", "Khumalo",
	"Santos", "Oliveira", "Pereira", "Costa", "Carvalho", "Almeida", "Ferreira", "Rocha", "Gomes", "Barbosa",
	"Yilmaz", "Kaya", "Demir", "Şahin", "Çelik", "Aydın", "Öztürk", "Arslan", "Doğan", "Kılıç",
	"Cohen", "Levi", "Mizrahi", "Friedman", "Katz", "Papadopoulos", "Georgiou", "Nikolaidis", "Vlahos", "Kazantzakis",
}

// searchFragments are the name fragments of the search scenario: each
// picks out one last name, about one candidate in 150, in the name and in
// the email alike.
var searchFragments = []string{"konkw", "dijks", "ovelac", "papadop", "gallagh", "watanab", "bergstr", "stroustr"}

// asciiFold spells the letters of the name lists that are not ASCII in
// ASCII, for email addresses.
var asciiFold = strings.NewReplacer(
	"á", "a", "à", "a", "ä", "a", "å", "a", "é", "e", "è", "e", "ë", "e", "í", "i", "ı", "i",
	"ñ", "n", "ó", "o", "ö", "o", "ø", "o", "ú", "u", "ü", "u", "ç", "c", "ğ", "g", "ş", "s",
	"ś", "s", "ß", "ss", " ", "", "'", "", "-", "",
)

// nameColumns are a name list as the insert needs it: as shown, folded as
// the store folds it (pipeline.Fold, so that the search finds what the
// store would), and as the ASCII part of an email address.
func nameColumns(names []string) (shown, folded, ascii []string) {
	for _, n := range names {
		f := pipeline.Fold(n)
		shown = append(shown, n)
		folded = append(folded, f)
		ascii = append(ascii, asciiFold.Replace(f))
	}
	return shown, folded, ascii
}
