module kalah

go 1.26.8
