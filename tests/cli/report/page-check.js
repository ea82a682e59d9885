// What a reader of an sdb page would notice, measured in the page's DOM by
// headless Chromium (tests/cli/report/html-pages.sh appends this to a page
// and reads the result back from --dump-dom): a text of a chart outside
// its chart's box (clipped), two texts of a chart drawn over each other,
// a text on the page as large as the headline or larger.  Each finding is
// a line of the pre element "page-check", then "checked N texts".
(function () {
	const found = [];
	let texts = 0;
	const headline = document.querySelector('.headline');
	const px = (e) => parseFloat(getComputedStyle(e).fontSize);
	const biggest = headline ? px(headline) : 0;
	if (!headline)
		found.push('no headline');
	for (const svg of document.querySelectorAll('svg')) {
		const box = svg.viewBox.baseVal, scale = svg.getBoundingClientRect().width / box.width;
		const title = svg.getAttribute('aria-label');
		const boxes = [];
		for (const t of svg.querySelectorAll('text')) {
			if (!t.textContent.trim())
				continue;
			texts++;
			const b = t.getBBox();
			if (b.x < -0.5 || b.y < -0.5 || b.x + b.width > box.width + 0.5 || b.y + b.height > box.height + 0.5)
				found.push('clipped: ' + title + ': ' + t.textContent);
			for (const [other, o] of boxes) {
				const w = Math.min(b.x + b.width, o.x + o.width) - Math.max(b.x, o.x);
				const h = Math.min(b.y + b.height, o.y + o.height) - Math.max(b.y, o.y);
				if (w > 1 && h > 1)
					found.push('overlap: ' + title + ': "' + t.textContent + '" on "' + other + '"');
			}
			boxes.push([t.textContent, b]);
			if (px(t) * scale >= biggest)
				found.push('as large as the headline: ' + title + ': ' + t.textContent);
		}
	}
	for (const e of document.body.querySelectorAll('h1, p, li, td, th, small')) {
		if (headline && headline.contains(e))
			continue;
		texts++;
		if (px(e) >= biggest)
			found.push('as large as the headline: ' + e.tagName + ': ' + e.textContent.slice(0, 60));
	}
	const pre = document.createElement('pre');
	pre.id = 'page-check';
	pre.textContent = found.concat(['checked ' + texts + ' texts']).join('\n');
	document.body.appendChild(pre);
})();
