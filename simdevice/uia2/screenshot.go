package uia2

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
)

// screenPalette colours the screenshot: a background, then outlines for
// plain, clickable, scrollable and focused views, then text.
var screenPalette = color.Palette{
	color.RGBA{0x20, 0x21, 0x24, 0xff},
	color.RGBA{0x9a, 0xa0, 0xa6, 0xff},
	color.RGBA{0x1a, 0x73, 0xe8, 0xff},
	color.RGBA{0x1e, 0x8e, 0x3e, 0xff},
	color.RGBA{0xf9, 0xab, 0x00, 0xff},
	color.RGBA{0xe8, 0xea, 0xed, 0xff},
}

// textColour is the palette index of the texts drawn.
const textColour = 5

// maxScreenPixels keeps a misconfigured screen size from allocating gigabytes.
const maxScreenPixels = 8192 * 8192

// render draws the screen: every element as an outlined box, with its
// text (or, without one, its content description) written inside.
func render(width, height int, elems []Element) (*image.Paletted, error) {
	if width <= 0 || height <= 0 || width*height > maxScreenPixels || width > maxScreenPixels || height > maxScreenPixels {
		return nil, newErr(errUnknownError, "cannot take a screenshot of a %dx%d screen", width, height)
	}
	img := image.NewPaletted(image.Rect(0, 0, width, height), screenPalette)
	for i := range elems {
		e := &elems[i]
		c := uint8(1)
		switch {
		case e.Focused:
			c = 4
		case e.Scrollable:
			c = 3
		case e.Clickable:
			c = 2
		}
		r := e.Bounds.Intersect(img.Rect)
		outline(img, r, c)
		label := e.Text
		if label == "" {
			label = e.ContentDesc
		}
		drawText(img, r, label, textColour)
	}
	return img, nil
}

func outline(img *image.Paletted, r image.Rectangle, c uint8) {
	if r.Empty() {
		return
	}
	const stroke = 2
	for _, band := range []image.Rectangle{
		{r.Min, image.Pt(r.Max.X, r.Min.Y+stroke)},
		{image.Pt(r.Min.X, r.Max.Y-stroke), r.Max},
		{r.Min, image.Pt(r.Min.X+stroke, r.Max.Y)},
		{image.Pt(r.Max.X-stroke, r.Min.Y), r.Max},
	} {
		band = band.Intersect(r)
		for y := band.Min.Y; y < band.Max.Y; y++ {
			row := img.Pix[img.PixOffset(band.Min.X, y):img.PixOffset(band.Max.X, y)]
			for i := range row {
				row[i] = c
			}
		}
	}
}

func encodePNG(img image.Image) (string, error) {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return "", newErr(errUnknownError, "encoding the screenshot: %v", err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

func (s *Server) screenshot(_ *call) (any, error) {
	w, h := s.screen.Size()
	img, err := render(w, h, s.screen.Elements())
	if err != nil {
		return nil, err
	}
	return encodePNG(img)
}

func (s *Server) elementScreenshot(c *call) (any, error) {
	return s.withElement(c, func(t *tree, _ int, e *Element) (any, error) {
		w, h := s.screen.Size()
		elems := make([]Element, 0, len(t.nodes)-1)
		for _, n := range t.nodes[1:] {
			elems = append(elems, n.el)
		}
		img, err := render(w, h, elems)
		if err != nil {
			return nil, err
		}
		r := e.Bounds.Intersect(img.Rect)
		if r.Empty() {
			return nil, newErr(errUnknownError, "the element %s %q is off screen at %v", e.Class, e.ResourceID, e.Bounds)
		}
		return encodePNG(img.SubImage(r))
	})
}
