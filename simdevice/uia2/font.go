package uia2

import (
	"image"
	"unicode"
)

// glyphs is a 3×5 pixel font: each glyph's five rows, top first, '#' a
// pixel drawn. Letters print as capitals; a rune it lacks prints as '?'.
var glyphs = map[rune]string{
	'A': ".#.#.#####.##.#", 'B': "##.#.###.#.###.", 'C': ".###..#..#...##",
	'D': "##.#.##.##.###.", 'E': "####..##.#..###", 'F': "####..##.#..#..",
	'G': ".###..#.##.#.##", 'H': "#.##.#####.##.#", 'I': "###.#..#..#.###",
	'J': "..#..#..##.#.#.", 'K': "#.##.###.#.##.#", 'L': "#..#..#..#..###",
	'M': "#.########.##.#", 'N': "##.#.##.##.##.#", 'O': ".#.#.##.##.#.#.",
	'P': "##.#.###.#..#..", 'Q': ".#.#.##.###..##", 'R': "##.#.###.#.##.#",
	'S': ".###...#...###.", 'T': "###.#..#..#..#.", 'U': "#.##.##.##.####",
	'V': "#.##.##.##.#.#.", 'W': "#.##.########.#", 'X': "#.##.#.#.#.##.#",
	'Y': "#.##.#.#..#..#.", 'Z': "###..#.#.#..###", '0': "####.##.##.####",
	'1': ".#.##..#..#.###", '2': "##...#.#.#..###", '3': "##...#.#...###.",
	'4': "#.##.####..#..#", '5': "####..##...###.", '6': ".###..####.####",
	'7': "###..#.#..#..#.", '8': "####.#####.####", '9': "####.####..###.",
	' ': "...............", '.': ".............#.", ',': "..........#.#..",
	':': "....#.....#....", ';': "....#.....#.#..", '-': "......###......",
	'_': "............###", '/': "..#..#.#.#..#..", '!': ".#..#..#.....#.",
	'?': "##...#.#.....#.", '(': "..#.#..#..#...#", ')': "#...#..#..#.#..",
	'\'': ".#..#..........", '"': "#.##.#.........", '+': "....#.###.#....",
	'&': ".#.#.#.#.#.#.##", '%': "#.#..#.#.#..#.#", '=': "...###...###...",
	'#': "#.#####.#####.#", '@': ".#.#.#####...##", '<': "..#.#.#...#...#",
	'>': "#...#...#.#.#..", '*': "#.#.#.#.#......", '|': ".#..#..#..#..#.",
}

const (
	glyphW, glyphH = 3, 5
	// glyphScale pixels a font pixel takes on the screenshot: 12×20
	// letters, legible on a phone-sized screen.
	glyphScale = 4
	glyphGap   = glyphScale // between letters, and inside a view's edge
)

// drawText writes s into r, from its top-left corner inward, in colour c:
// the letters that fit on one line, cut at r's edge.
func drawText(img *image.Paletted, r image.Rectangle, s string, c uint8) {
	x, y := r.Min.X+2*glyphGap, r.Min.Y+2*glyphGap
	for _, ch := range s {
		if x+glyphW*glyphScale > r.Max.X {
			return
		}
		g, ok := glyphs[unicode.ToUpper(ch)]
		if !ok || len(g) != glyphW*glyphH {
			g = glyphs['?']
		}
		for i := range len(g) {
			if g[i] != '#' {
				continue
			}
			px := image.Rect(x+i%glyphW*glyphScale, y+i/glyphW*glyphScale, x+(i%glyphW+1)*glyphScale, y+(i/glyphW+1)*glyphScale).Intersect(r)
			for py := px.Min.Y; py < px.Max.Y; py++ {
				row := img.Pix[img.PixOffset(px.Min.X, py):img.PixOffset(px.Max.X, py)]
				for k := range row {
					row[k] = c
				}
			}
		}
		x += glyphW*glyphScale + glyphGap
	}
}
